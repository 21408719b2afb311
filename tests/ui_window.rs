//! The desktop window driven like a person would (egui_kittest), on a real store in a temp
//! folder and the in-process sandbox over loopback.

mod gui;
mod support;

use egui_kittest::kittest::{NodeT, Queryable};
use lodge::app::{Command, DedupStatus, LogLevel, StatusKind, Update};
use lodge::content::{Affiliation, ContentKey};
use lodge::sandbox::FaultConfig;
use lodge::store::JobState;
use lodge::ui::LodgeApp;

use gui::{WINDOW, Window, citable_folder, notices_with};

async fn sandbox_requests(scope_id: &str) -> u64 {
    let base = scope_id.trim_start_matches("sandbox+");
    let stats: serde_json::Value = reqwest::get(format!("{base}/stats"))
        .await
        .expect("GET /stats")
        .json()
        .await
        .expect("stats JSON");
    stats["requests"].as_u64().expect("requests counter")
}

#[test]
fn dropping_a_folder_adds_a_row_that_shows_the_key_after_hashing() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    w.drop_paths(&[&folder]);
    w.wait("the row to get its key", |app| {
        app.model
            .rows()
            .iter()
            .any(|r| r.name == "soil-cores" && r.key.is_some())
    });
    let key = w.app().model.rows()[0].key.expect("key");
    w.harness.get_by_label(&key.short());
    w.harness.get_by_label("1 of 1 dataset");
    assert_eq!(
        w.status("soil-cores"),
        Some(DedupStatus::New { ready: true })
    );
}

/// Where no folder picker answers and nothing can be dropped (a desktop without an XDG
/// portal, a remote X session), a folder's path pasted onto the window adds it; pasted text
/// that is no path gets a notice; a path pasted into the search field is a search.
#[test]
fn a_folder_path_pasted_onto_the_window_adds_it_and_other_text_gets_a_notice() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    w.paste(&format!("{}\n", folder.display()));
    w.wait("the pasted folder to get its key", |app| {
        app.model
            .rows()
            .iter()
            .any(|r| r.name == "soil-cores" && r.key.is_some() && r.id > 0)
    });

    w.paste("hello world");
    let said = notices_with(
        w.app(),
        "Pasted text is not a folder's path ('hello world')",
    );
    assert_eq!(said.len(), 1, "{said:?}");

    let lake = citable_folder(&w.lab, "lake", "Lake 2026");
    w.harness.get_by_label("Search:").focus();
    w.harness.step();
    w.paste(&lake.display().to_string());
    for _ in 0..20 {
        w.harness.step();
    }
    assert_eq!(w.app().table.search, lake.display().to_string());
    assert_eq!(w.app().model.rows().len(), 1, "nothing was added");
    assert_eq!(
        notices_with(w.app(), "Pasted text").len(),
        1,
        "no notice for a search"
    );
}

/// A notice sits above the log, so while it shows the log's newest lines and its filters
/// stay in sight (it used to sit in the window's corner, over the last lines).
#[test]
fn a_notice_sits_above_the_log_and_covers_none_of_its_lines() {
    let mut w = Window::open(FaultConfig::default());
    w.paste("hello world");
    // The notice's area measures itself in its first frame, drawn in the next.
    w.harness.run_steps(3);
    let text = w
        .app()
        .notices
        .current()
        .next()
        .expect("a notice")
        .text
        .clone();
    let notice = w.harness.get_by_value(&text).rect();
    let log_top = w.harness.get_by_label("Level:").rect().top();
    assert!(
        notice.bottom() < log_top,
        "the notice {notice:?} reaches into the log, whose filters start at {log_top}"
    );
}

/// A folder whose `CITATION.cff` cannot be read is added with its metadata to fill in,
/// but the embargo its `.zenodo.json` gives is kept, and the notice says so.
#[test]
fn a_dropped_folder_keeps_its_zenodo_json_embargo_when_its_citation_cff_cannot_be_read() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder(
        "weather",
        &[
            ("data.csv", b"id\n1\n".as_slice()),
            (
                "CITATION.cff",
                b"cff-version: 1.2.0\ntitle: Weather\ndate-released: 2026-02-30\n".as_slice(),
            ),
            (
                ".zenodo.json",
                br#"{"access_right": "embargoed", "embargo_date": "2099-01-01"}"#.as_slice(),
            ),
        ],
    );
    w.add_folder(&folder);
    let row = w.app().model.rows()[0].clone();
    assert_eq!(
        row.metadata.access,
        lodge::content::FileAccess::Embargoed {
            until: "2099-01-01".into()
        }
    );
    let said = notices_with(w.app(), "Its files are kept embargoed until 2099-01-01");
    assert_eq!(said.len(), 1, "{:?}", w.app().model.log);
}

/// A `.zenodo.json` whose access cannot be read either ("private" is no Zenodo access right)
/// keeps the dropped folder's files from the public, and the notice says why and where to
/// choose otherwise.
#[test]
fn a_dropped_folder_whose_zenodo_json_access_cannot_be_read_is_kept_restricted() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder(
        "private",
        &[
            ("data.csv", b"id\n1\n".as_slice()),
            (
                ".zenodo.json",
                br#"{"title": "Private", "access_right": "private"}"#.as_slice(),
            ),
        ],
    );
    w.add_folder(&folder);
    let row = w.app().model.rows()[0].clone();
    assert_eq!(row.metadata.access, lodge::content::FileAccess::Restricted);
    let said = notices_with(
        w.app(),
        "that could not be read either: they are kept restricted until you choose otherwise \
         in the details' File access",
    );
    assert_eq!(said.len(), 1, "{:?}", w.app().model.log);
}

/// The wrong folder dropped, or one far bigger than meant (here 8 GiB of sparse files): its
/// row's Stop ends the hashing, and nothing of it is recorded.
#[test]
fn stop_on_a_folder_being_hashed_ends_it_and_records_nothing() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.path("huge");
    std::fs::create_dir_all(&folder).unwrap();
    for n in 0..4 {
        let f = std::fs::File::create(folder.join(format!("part{n}.bin"))).unwrap();
        f.set_len(2 << 30).unwrap();
    }
    w.drop_paths(&[&folder]);
    w.wait("the folder to be hashing", |app| {
        app.model
            .rows()
            .iter()
            .any(|r| r.name == "huge" && r.hashing.is_some())
    });
    w.harness.get_by_label("Stop").click();
    w.wait("the hashing to stop", |app| app.model.rows().is_empty());
    let said = notices_with(w.app(), "Stopped adding huge: nothing of it was recorded.");
    assert_eq!(said.len(), 1, "{said:?}");
    let store = lodge::store::Store::open(&w.lab.path("app").join("lodge.db")).unwrap();
    assert!(store.datasets().unwrap().is_empty());
}

#[test]
fn deposit_ends_deposited_with_the_identifier_and_again_replays_with_no_request_and_stays_deposited()
 {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    w.add_folder(&folder);

    w.harness.get_by_label("Deposit").click();
    w.wait("Deposited", |app| {
        app.table.order.len() == 1
            && matches!(
                app.status_of(app.table.order[0]),
                Some(DedupStatus::Deposited { .. })
            )
    });
    let Some(DedupStatus::Deposited { identifier, .. }) = w.status("soil-cores") else {
        unreachable!()
    };
    w.harness
        .get_by_label_contains(&format!("Deposited · {identifier}"));

    let scope = w.app().target_id().to_string();
    let before = w.runtime.block_on(sandbox_requests(&scope));
    // The details say how it went, in words: one attempt, not "1 attempt(s)".
    let id = w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness
        .get_by_label_contains(&format!("· deposited · 1 attempt: {identifier}"));
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("the replay", |app| {
        app.model.log.iter().any(|l| l.kind == "replay")
    });
    w.harness.step();
    assert!(
        matches!(w.app().status_of(id), Some(DedupStatus::Deposited { .. })),
        "the deposit that made the record stays the row's: {:?}",
        w.app().status_of(id)
    );
    assert!(
        w.harness
            .query_all_by_label_contains(&format!("Deposited · {identifier}"))
            .next()
            .is_some(),
        "the badge names the record"
    );
    let replays = w.log_of("replay");
    assert_eq!(replays.len(), 1, "one replay in the log: {replays:?}");
    assert!(replays[0].contains("no request sent"), "{replays:?}");
    let after = w.runtime.block_on(sandbox_requests(&scope));
    assert_eq!(after, before, "the replay sent nothing to the sandbox");

    // The details list the replay under the deposit it repeats, not as a job of its own.
    w.open_details("soil-cores", |d| d.jobs.len() == 2);
    w.harness
        .get_by_label_contains(&format!("· deposited · 1 attempt: {identifier}"));
    w.harness
        .get_by_label("replayed since: 1 time (job 2), no request sent");
    assert!(
        w.harness
            .query_all_by_label_contains("· existing ·")
            .next()
            .is_none(),
        "no line of its own for the replay"
    );
}

#[test]
fn a_deposited_datasets_details_copy_its_identifier_link_and_citation() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, url) = w.deposit_row(id);
    w.open_details("soil-cores", |d| {
        d.jobs.iter().any(|(j, _)| j.identifier.is_some())
    });
    w.harness.step();
    let copied = |w: &mut Window, button: &str| w.copied_by(button);
    assert_eq!(copied(&mut w, "Copy identifier"), Some(identifier));
    assert!(
        w.harness.query_by_label("Copy folder").is_none(),
        "the sandbox keeps files by digest: no folder of the dataset's own"
    );
    assert_eq!(copied(&mut w, "Copy link"), url.clone());
    let cite = copied(&mut w, "Copy citation").expect("a citation");
    assert!(
        cite.contains("(2026): Soil cores 2026. ") && cite.ends_with(url.as_deref().unwrap()),
        "the record cited with its metadata, by its link: {cite}"
    );
}

/// *Open record* in the table and in the details, and a record's link in History, all hand
/// the record's address to the desktop through the service (which signs it where the
/// target needs that, and says so when no browser opens it), never through egui's own
/// opener, which fails without a word.
#[test]
fn open_record_in_the_table_the_details_and_the_history_hands_the_desktop_the_records_link() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, url) = w.deposit_row(id);
    let url = url.expect("a sandbox record has a link");
    let egui_opened = |w: &Window| {
        w.harness
            .output()
            .platform_output
            .commands
            .iter()
            .any(|c| matches!(c, egui::OutputCommand::OpenUrl(_)))
    };

    w.harness.get_by_label("Open record").click();
    assert_eq!(w.wait_opened(1)[0], url, "the table's button");

    w.open_details("soil-cores", |d| {
        d.jobs.iter().any(|(j, _)| j.identifier.is_some())
    });
    w.harness.step();
    let in_details = w
        .harness
        .query_all_by_label("Open record")
        .last()
        .expect("the details' Open record");
    in_details.click_accesskit();
    assert_eq!(w.wait_opened(2)[1], url, "the details' button");

    w.open_history();
    w.harness.get_by_label(&identifier).click();
    w.harness.step();
    assert!(!egui_opened(&w), "History opened the link itself");
    assert_eq!(w.wait_opened(3)[2], url, "the history's link");
}

/// *Verify deposited* is there, greyed out, before anything has landed: appearing with the
/// first deposit, it wrapped the bar and moved every row down from under the pointer.
#[test]
fn the_first_deposit_landing_does_not_move_the_rows() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.step();
    let verify = w.harness.get_by_label("Verify deposited (0)");
    assert!(
        verify.accesskit_node().is_disabled(),
        "nothing to verify yet"
    );
    let before = w.harness.get_by_label("soil-cores").rect();
    w.deposit_row(id);
    w.harness.step();
    let verify = w.harness.get_by_label("Verify deposited (1)");
    assert!(!verify.accesskit_node().is_disabled());
    assert_eq!(w.harness.get_by_label("soil-cores").rect(), before);
}

/// A check runs once at a time: while *Verify deposited* checks, its button waits
/// ("Verifying…"), and so do a deposit's own Verify, Verify bytes and Repair while it is
/// checked ("Checking…"); a second press would check, or read back, everything again. Each
/// is offered again once its check ends.
#[test]
fn a_check_running_holds_its_buttons_until_it_ends() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.harness.step();
    let slow = FaultConfig {
        latency_ms: 1_500,
        ..FaultConfig::default()
    };
    w.harness.state().send(Command::SetSandboxFaults(slow));
    w.harness
        .get_by_label("Verify deposited (1)")
        .click_accesskit();
    w.harness.run_steps(2);
    let waiting = w.harness.get_by_label("Verifying…");
    assert!(waiting.accesskit_node().is_disabled());
    w.wait("the check's notice", |app| {
        !gui::notices_with(app, "is intact").is_empty()
    });
    w.harness.step();
    let again = w.harness.get_by_label("Verify deposited (1)");
    assert!(!again.accesskit_node().is_disabled());

    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    w.harness.get_by_label("Verify").click_accesskit();
    w.harness.run_steps(2);
    let checking = w.harness.get_by_label("Checking…");
    assert!(checking.accesskit_node().is_disabled());
    assert!(w.harness.query_by_label("Verify bytes").is_none());
    w.wait("the second notice", |app| {
        gui::notices_with(app, "is intact").len() == 2
    });
    w.harness.step();
    w.harness.get_by_label("Verify bytes");
}

/// A check of more than five deposits says it started; its findings take that notice's
/// place, rather than "a notice follows" staying beside them.
#[test]
fn verify_deposited_of_many_replaces_its_started_notice_with_its_findings() {
    let mut w = Window::open(FaultConfig::default());
    for n in 1..=6 {
        w.add_folder(&w.lab.numbered_folder(n));
        let id = w.row_id(&format!("ds{n:03}"));
        let target = w.app().target_id().to_string();
        w.harness
            .state_mut()
            .send(lodge::app::Command::SetMetadata {
                id,
                metadata: Box::new(support::metadata(&format!("Survey {n}"))),
                then_deposit: Some(target),
            });
    }
    w.wait("all deposited", |app| {
        app.model.rows().iter().all(|r| {
            matches!(
                gui::status_of(app, &r.name),
                Some(DedupStatus::Deposited { .. })
            )
        })
    });
    w.harness.step();
    let (_, said) = w.press_for_notice("Verify deposited (6)", "All 6 deposits");
    assert!(said.contains("are intact"), "{said}");
    w.harness.step();
    let shown: Vec<&str> = (w.app().notices.current())
        .map(|n| n.text.as_str())
        .collect();
    assert!(
        !gui::notices_with(w.app(), "Verifying 6 deposits").is_empty(),
        "it said it started"
    );
    assert!(
        shown.iter().all(|n| !n.starts_with("Verifying"))
            && shown.iter().any(|n| n.starts_with("All 6 deposits")),
        "the started notice went with the findings: {shown:?}"
    );
}

/// *Verify deposited*, above the table, checks every deposit in the list on the chosen
/// target at once: one notice sums up, naming the damaged deposit and what it lost, and
/// only that row turns damaged.
#[test]
fn verify_deposited_checks_every_deposit_and_names_the_damaged_one() {
    let mut w = Window::open(FaultConfig::default());
    let soil = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let water = citable_folder(&w.lab, "water-samples", "Water samples 2026");
    for folder in [&soil, &water] {
        let id = w.add_folder(folder);
        w.deposit_row(id);
    }
    // The sandbox loses soil-cores' CITATION.cff (water-samples' differs by its title).
    let cff = std::fs::read(soil.join("CITATION.cff")).unwrap();
    let blob = w.sandbox_blob(&cff);
    std::fs::remove_file(blob).unwrap();

    w.harness.step();
    let (_, said) = w.press_for_notice("Verify deposited (2)", "Of 2 deposits");
    assert!(
        said.contains(", 1 intact; damaged: soil-cores (CITATION.cff is missing)"),
        "{said}"
    );
    w.wait("the damaged row", |app| {
        matches!(
            gui::status_of(app, "soil-cores"),
            Some(DedupStatus::Damaged { .. })
        )
    });
    assert!(
        matches!(
            w.status("water-samples"),
            Some(DedupStatus::Deposited { .. })
        ),
        "{:?}",
        w.status("water-samples")
    );
    assert_eq!(w.log_of("verified").len(), 1);
    assert_eq!(w.log_of("damaged").len(), 1);

    // The History says so too, beside the state it landed in.
    w.open_history();
    w.harness.run_steps(2);
    assert_eq!(
        w.harness.query_all_by_label("deposited, damaged").count(),
        1,
        "soil-cores' deposit only"
    );
}

/// A dataset edited since its deposit reads *New version*, but its record is still there,
/// cited by people: *Verify deposited* checks it too, as `lodge verify --all` does, and
/// names what it lost.
#[test]
fn verify_deposited_checks_the_record_of_a_dataset_waiting_on_its_new_version() {
    let mut w = Window::open(FaultConfig::default());
    let soil = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&soil);
    w.deposit_row(id);
    w.retitle(id, " revised");
    w.wait("a new version", |app| {
        matches!(app.status_of(id), Some(DedupStatus::NewVersion { .. }))
    });
    let cff = std::fs::read(soil.join("CITATION.cff")).unwrap();
    std::fs::remove_file(w.sandbox_blob(&cff)).unwrap();

    w.harness.step();
    let (_, said) = w.press_for_notice("Verify deposited (1)", "damaged");
    assert!(
        said.contains("soil-cores (CITATION.cff is missing)"),
        "{said}"
    );
}

/// *Verify deposited* sits beside the list and checks what the list shows: with a search,
/// only the deposits of the datasets it finds.
#[test]
fn verify_deposited_checks_only_the_datasets_the_search_shows() {
    let mut w = Window::open(FaultConfig::default());
    for (name, title) in [
        ("soil-cores", "Soil cores 2026"),
        ("water-samples", "Water samples 2026"),
    ] {
        let id = w.add_folder(&citable_folder(&w.lab, name, title));
        w.deposit_row(id);
    }
    w.harness.step();
    w.harness.get_by_label("Verify deposited (2)");
    w.harness.get_by_label("Search:").focus();
    w.harness.step();
    w.harness.get_by_label("Search:").type_text("soil");
    w.harness.step();
    w.harness.step();
    let (_, said) = w.press_for_notice("Verify deposited (1)", "is intact");
    assert!(said.starts_with("The deposit on "), "{said}");
    w.wait("the check in the log", |app| {
        app.model.log.iter().any(|l| l.kind == "verified")
    });
    let checked = w.log_of("verified");
    assert_eq!(checked.len(), 1, "{checked:?}");
}

/// Two copies of one folder share one deposit: *Verify deposited* checks it once.
#[test]
fn verify_deposited_checks_a_deposit_two_copies_share_once() {
    let mut w = Window::open(FaultConfig::default());
    let first = w.add_folder(&citable_folder(&w.lab, "copy-a", "Soil cores 2026"));
    w.add_folder(&citable_folder(&w.lab, "copy-b", "Soil cores 2026"));
    let target = w.app().target_id().to_string();
    w.harness.state().send(Command::Deposit {
        ids: vec![first],
        target,
    });
    w.wait("both rows deposited", |app| app.table.landed_ids.len() == 2);
    w.harness.step();
    // The button counts the one deposit, not the two rows.
    let (_, said) = w.press_for_notice("Verify deposited (1)", "is intact");
    assert!(
        said.starts_with("The deposit on "),
        "one deposit, checked once: {said}"
    );
    assert_eq!(w.log_of("verified").len(), 1);
}

/// A file the sandbox holds with other bytes of the same size passes Verify (it asks for
/// sizes) and is found by Verify bytes, which reads every file back: the notice names it,
/// and the row turns damaged.
#[test]
fn verify_bytes_in_the_details_finds_a_file_replaced_by_other_bytes_of_its_size() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.deposit_row(id);
    let readme = std::fs::read(folder.join("README.txt")).unwrap();
    let blob = w.sandbox_blob(&readme);
    let mut other = readme.clone();
    *other.last_mut().unwrap() ^= 1;
    std::fs::write(&blob, &other).unwrap();

    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    let (_, intact) = w.press_for_notice("Verify", "is intact");
    assert!(intact.contains("3 files, 205 B: sizes match"), "{intact}");

    // While a check reads bytes back, a bar under the deposit says how far it is...
    let job = w.app().model.details.as_ref().unwrap().jobs[0].0.id;
    w.harness.state_mut().model.apply(Update::ReadBack {
        job,
        progress: Some((1024, 4096)),
    });
    w.harness.step();
    assert!(
        w.harness
            .query_by_label_contains("Reading back 1.0 KiB of 4.0 KiB")
            .is_some(),
        "no read-back bar"
    );

    let (_, damaged) = w.press_for_notice("Verify bytes", "is damaged");
    // ...and goes when the check is over.
    w.wait("the bar gone", |app| app.model.reading_back.is_empty());
    assert!(
        damaged.contains("README.txt has other bytes on the server"),
        "{damaged}"
    );
    // Repair cannot mend other bytes under a file's name: the notice says what can.
    assert!(
        damaged.contains("remove that file on the server") && !damaged.contains("Repair, under"),
        "{damaged}"
    );
    w.wait("the row's damaged status", |app| {
        let row = app.model.rows().iter().find(|r| r.name == "soil-cores");
        row.is_some_and(|r| {
            matches!(
                app.model.status(r, app.target_id()),
                DedupStatus::Damaged { .. }
            )
        })
    });
    // ...nor is it offered for them: it could only say it cannot.
    w.harness.run_steps(2);
    w.harness.get_by_label("Verify bytes");
    assert!(w.harness.query_by_label("Repair").is_none());

    // Deposit again: a replay, which mends nothing, and is said not to.
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("the replay's warning", |app| {
        !gui::notices_with(app, "soil-cores was found damaged when last checked").is_empty()
    });
    let (level, said) =
        gui::notices_with(w.app(), "soil-cores was found damaged when last checked").remove(0);
    assert_eq!(level, LogLevel::Warning);
    assert!(
        said.contains("README.txt has other bytes on the server")
            && said.contains("a deposit replays a landed deposit and sends nothing"),
        "{said}"
    );
}

/// A notice that a deposit is damaged goes once a later check finds it intact (a repair
/// from the command line, the file put back by hand): it would say "damaged" over a row
/// that reads deposited.
#[test]
fn a_damaged_notice_goes_once_a_later_check_finds_the_deposit_intact() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.deposit_row(id);
    let cff = std::fs::read(folder.join("CITATION.cff")).unwrap();
    let blob = w.sandbox_blob(&cff);
    std::fs::remove_file(&blob).unwrap();
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    w.press_for_notice("Verify", "is damaged");
    let shown = |w: &Window| (w.app().notices.current()).any(|n| n.text.contains("is damaged"));
    w.harness.step();
    assert!(shown(&w));

    std::fs::write(&blob, &cff).unwrap();
    w.harness.run_steps(2);
    w.press_for_notice("Verify", "is intact");
    w.harness.run_steps(2);
    assert!(!shown(&w), "the damaged notice is taken down");
}

#[test]
fn verify_in_the_details_says_the_deposit_is_intact_then_names_the_file_the_sandbox_lost() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, _) = w.deposit_row(id);
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    let (level, intact) = w.press_for_notice("Verify", "is intact");
    assert_eq!(level, LogLevel::Info);
    assert!(
        intact.starts_with("soil-cores is intact on Local sandbox")
            && intact.contains(&format!("(record {identifier})"))
            && intact.contains("3 files")
            && intact.contains("sizes match"),
        "{intact}"
    );
    assert_eq!(
        w.log_of("verified").len(),
        1,
        "the check is in the live log"
    );

    // The sandbox loses the dataset's CITATION.cff: the next check names it.
    let cff = std::fs::read(folder.join("CITATION.cff")).unwrap();
    let blob = w.sandbox_blob(&cff);
    std::fs::remove_file(blob).unwrap();
    w.open_details("soil-cores", |d| {
        d.jobs
            .iter()
            .any(|(_, events)| events.iter().any(|e| e.kind.as_str() == "verified"))
    });
    w.harness.step();
    let (level, damaged) = w.press_for_notice("Verify", "is damaged");
    assert_eq!(level, LogLevel::Error);
    assert!(
        damaged.contains("CITATION.cff is missing")
            && damaged.contains("Repair, under the deposit, sends what was lost again"),
        "{damaged}"
    );
    let logged = w.log_of("damaged");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        logged[0].contains("verify found: CITATION.cff is missing"),
        "{logged:?}"
    );

    // The row says so, and still does in a window opened again.
    let damaged = |app: &LodgeApp| {
        let row = app.model.rows().iter().find(|r| r.name == "soil-cores");
        match row.map(|r| app.model.status(r, app.target_id())) {
            Some(DedupStatus::Damaged {
                identifier: i,
                finding,
                ..
            }) => i == identifier && finding == "CITATION.cff is missing",
            _ => false,
        }
    };
    w.wait("the row's damaged status", damaged);
    let badge = format!("⚠ Damaged · {identifier}");
    assert!(
        w.harness.query_all_by_label(&badge).next().is_some(),
        "no badge {badge}"
    );
    let mut w = w.reopen();
    assert!(damaged(w.app()), "reopened: {:?}", w.status("soil-cores"));

    // Repair sends the lost file again from the folder: deposited, as before.
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    w.harness.get_by_label("Repair").click_accesskit();
    w.wait("the row deposited again", |app| {
        let row = app.model.rows().iter().find(|r| r.name == "soil-cores");
        row.is_some_and(|r| {
            matches!(
                app.model.status(r, app.target_id()),
                DedupStatus::Deposited { .. }
            )
        })
    });
    let (level, repaired) = gui::notices_with(w.app(), "is repaired").remove(0);
    assert_eq!(level, LogLevel::Info);
    assert!(
        repaired.contains("sent again CITATION.cff; now intact: 3 files"),
        "{repaired}"
    );
    let blob = w.sandbox_blob(&cff);
    assert_eq!(std::fs::read(blob).unwrap(), cff);
    assert_eq!(w.log_of("repair").len(), 1);
    // Whole again: no Repair to offer.
    w.open_details("soil-cores", |d| {
        d.jobs
            .iter()
            .any(|(_, events)| events.iter().any(|e| e.kind.as_str() == "repair"))
    });
    w.harness.step();
    assert!(w.harness.query_by_label("Repair").is_none());
}

#[test]
fn a_deposited_dataset_with_edited_metadata_shows_a_new_version_of_its_record_and_deposit_all_ready_sends_it_as_a_new_record()
 {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, _) = w.deposit_row(id);

    // A corrected title makes another key: the row says which record it is a new version of.
    w.retitle(id, ", corrected");
    w.wait("the new version", |app| {
        matches!(app.status_of(id), Some(DedupStatus::NewVersion { .. }))
    });
    assert_eq!(
        w.status("soil-cores"),
        Some(DedupStatus::NewVersion {
            identifier: identifier.clone(),
            url: w.app().model.rows()[0]
                .jobs
                .values()
                .next()
                .and_then(|j| j.url.clone()),
        })
    );
    assert!(
        w.harness
            .query_all_by_label_contains(&format!("New version · was {identifier}"))
            .next()
            .is_some(),
        "the badge names the earlier record"
    );

    // Depositing it is a new record, never a replay of the old one; Deposit all ready
    // sends it as it sends a new dataset (as `lodge deposit --all` does).
    w.harness.step();
    w.harness.get_by_label("Deposit all ready (1)").click();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let Some(DedupStatus::Deposited {
        identifier: new, ..
    }) = w.app().status_of(id)
    else {
        unreachable!()
    };
    assert_ne!(new, identifier, "a second record for the second version");

    // The details tell the two deposits apart: the first is of the earlier content.
    w.open_details("soil-cores", |d| d.jobs.len() == 2);
    w.harness.step();
    let earlier = format!("· earlier content: {identifier}");
    assert!(
        w.harness.query_all_by_label_contains(&earlier).count() == 1,
        "the first deposit is marked as of the earlier content"
    );
    assert!(
        w.harness
            .query_all_by_label_contains(&format!("· 1 attempt: {new}"))
            .count()
            == 1,
        "the new deposit is not marked"
    );
}

/// Edits not saved stay with their dataset: selecting another row, or closing the details
/// with Escape, and coming back finds them in the form, still to save or undo.
#[test]
fn edits_not_saved_survive_selecting_another_row_and_closing_the_details() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let water = w.add_folder(&citable_folder(
        &w.lab,
        "water-samples",
        "Water samples 2026",
    ));
    w.select(soil);
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(", corrected");
    w.harness.step();
    w.harness.step();

    let title = |w: &Window| w.harness.get_by_label("Title").value().unwrap_or_default();
    w.select(water);
    assert_eq!(
        title(&w),
        "Water samples 2026",
        "the other dataset's own form"
    );
    w.select(soil);
    assert_eq!(title(&w), "Soil cores 2026, corrected");
    assert!(w.harness.query_by_label("Undo edits").is_some());

    w.harness.key_press(egui::Key::Escape);
    w.harness.step();
    w.harness.key_press(egui::Key::Escape);
    w.harness.step();
    assert_eq!(w.app().selected, None, "the details closed");
    w.select(soil);
    assert_eq!(title(&w), "Soil cores 2026, corrected");
    assert_eq!(
        w.app().model.row(soil).unwrap().metadata.title,
        "Soil cores 2026",
        "nothing saved yet"
    );
}

/// A row's Deposit, beside details that hold edits not saved, saves them first: the record
/// carries what the person sees (a record is made once), as the details' Deposit does. With
/// edits not valid yet it does nothing until they are fixed.
#[test]
fn a_rows_deposit_carries_the_edits_not_saved_in_its_details() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.select(id);
    w.replace_text("Year", "20x5");
    assert!(
        w.harness
            .get_by_label("Deposit")
            .accesskit_node()
            .is_disabled(),
        "edits not valid yet hold the row's Deposit"
    );

    w.replace_text("Year", "2025");
    w.harness.get_by_label("Deposit").click();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let row = w.app().model.row(id).unwrap();
    assert_eq!(
        row.metadata.publication_year,
        Some(2025),
        "saved, then deposited"
    );
    assert!(w.harness.query_by_label("Undo edits").is_none());
}

/// A Year that is no number cannot be saved: the metadata has no place for it, so a save
/// dropped it, and the year stored before with it (then warned of a save "elsewhere" that
/// never happened). Both Save buttons wait until the Year is a year or empty.
#[test]
fn a_year_that_is_no_number_is_not_saved_over_the_stored_year() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.select(id);
    let stored_year = w.app().model.row(id).unwrap().metadata.publication_year;
    assert_eq!(stored_year, Some(2026));
    w.replace_text("Year", "abc");
    w.harness.step();
    w.harness.get_by_label("✏ Edits not saved");
    for save in ["Save", "Save metadata"] {
        let button = w.harness.get_by_label(save);
        assert!(
            button.accesskit_node().is_disabled(),
            "{save} waits for a year"
        );
    }
    w.harness.get_by_label("Save").hover();
    w.wait_for_label_contains("'abc' is not a year: write four digits in Year");
    assert_eq!(
        w.app().model.row(id).unwrap().metadata.publication_year,
        Some(2026),
        "the stored year stays"
    );

    w.replace_text("Year", "2025");
    w.harness.step();
    w.harness.get_by_label("Save").click();
    w.wait("saved", |app| {
        app.model.row(id).unwrap().metadata.publication_year == Some(2025)
    });
    assert!(
        gui::notices_with(w.app(), "saved elsewhere").is_empty(),
        "no save elsewhere to warn of"
    );
}

#[test]
fn edits_saved_by_save_or_by_deposit_leave_the_form_with_nothing_to_save_or_undo() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    let edited = |w: &Window| {
        (
            !w.harness
                .get_by_label("Save metadata")
                .accesskit_node()
                .is_disabled(),
            w.harness.query_by_label("Undo edits").is_some(),
        )
    };
    assert_eq!(edited(&w), (false, false));

    // Saved by Save metadata.
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(", corrected");
    w.harness.step();
    w.harness.step();
    assert_eq!(edited(&w), (true, true));
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait("the new title stored", |app| {
        app.model.row(id).unwrap().metadata.title == "Soil cores 2026, corrected"
    });
    assert_eq!(edited(&w), (false, false), "after Save metadata");

    // Saved by Deposit (which saves the edits, then deposits).
    w.harness.get_by_label("Title").focus();
    w.harness.step();
    w.harness.get_by_label("Title").type_text(" again");
    w.harness.step();
    w.harness.step();
    assert_eq!(edited(&w), (true, true));
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    assert_eq!(
        w.app().model.row(id).unwrap().metadata.title,
        "Soil cores 2026, corrected again"
    );
    assert_eq!(edited(&w), (false, false), "after Deposit");

    // A blank creator row says nothing new: there is nothing to save.
    w.harness.get_by_label("+ Add creator").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(edited(&w), (false, false), "a blank creator row is no edit");
}

#[test]
fn a_copy_of_a_deposited_folder_shows_already_deposited_with_its_identifier_before_any_deposit() {
    let mut w = Window::open(FaultConfig::default());
    let original = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let copy = citable_folder(&w.lab, "soil-cores-backup", "Soil cores 2026");
    w.drop_paths(&[&original, &copy]);
    w.wait("hashing both", |app| {
        app.model.rows().len() == 2 && app.model.rows().iter().all(|r| r.key.is_some())
    });
    let id = w.row_id("soil-cores");
    w.select(id);
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let Some(DedupStatus::Deposited { identifier, .. }) = w.status("soil-cores") else {
        unreachable!()
    };
    let Some(DedupStatus::AlreadyDeposited {
        identifier: copy_id,
        ..
    }) = w.status("soil-cores-backup")
    else {
        panic!(
            "the copy (same key) should show as already deposited, not {:?}",
            w.status("soil-cores-backup")
        );
    };
    assert_eq!(copy_id, identifier);
}

/// Drop two copies of one folder (the same files and metadata: one key), and once both are
/// hashed press Deposit all ready.
fn deposit_two_copies(w: &mut Window) {
    let original = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let copy = citable_folder(&w.lab, "soil-cores-backup", "Soil cores 2026");
    w.drop_paths(&[&original, &copy]);
    w.wait("hashing both", |app| {
        app.model.rows().len() == 2 && app.model.rows().iter().all(|r| r.key.is_some())
    });
    w.harness.get_by_label("Deposit all ready (2)").click();
}

/// Two datasets of the same content deposited in one press share one deposit: the notice
/// says so, not that a deposit "was on the queue already".
#[test]
fn copies_deposited_together_are_said_to_share_one_deposit() {
    let mut w = Window::open(FaultConfig::default());
    deposit_two_copies(&mut w);
    w.wait("both deposited", |app| {
        app.model.rows().iter().all(|r| {
            matches!(
                app.status_of(r.id),
                Some(DedupStatus::Deposited { .. } | DedupStatus::AlreadyDeposited { .. })
            )
        })
    });
    let said = notices_with(
        w.app(),
        "1 dataset holds the same content as another dataset",
    );
    assert_eq!(said.len(), 1, "{:?}", w.app().model.log);
    assert!(
        notices_with(w.app(), "on the queue already").is_empty(),
        "nothing was queued before the press"
    );
}

/// A copy deposited with its twin shares the twin's one job: when that job fails, the
/// copy's row says failed too (not "new"), names whose job it is, and its Retry re-queues
/// that job, which lands one record for both.
#[test]
fn a_copys_row_reads_failed_when_the_deposit_it_shares_fails_and_its_retry_sends_that_deposit() {
    let always_503 = FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    };
    let mut w = Window::open(always_503);
    deposit_two_copies(&mut w);
    w.wait("both rows failed", |app| {
        app.model
            .rows()
            .iter()
            .all(|r| app.status_of(r.id).map(|s| s.kind()) == Some(StatusKind::Failed))
    });
    w.harness.step();
    // One deposit failed, however many rows share it.
    w.harness.get_by_label("Retry all failed (1)");
    // Whichever was queued first holds the job; the other row is the copy that shares it.
    let (copy_row, copy_id, holder, holder_id) = {
        let app = w.app();
        let shared: Vec<(usize, i64, String, i64)> = (app.table.order.iter().enumerate())
            .filter_map(|(i, id)| {
                let row = app.model.row(*id)?;
                let (holder, _) = app.model.copy_deposit(row, app.target_id())?;
                Some((i, *id, holder.name.clone(), holder.id))
            })
            .collect();
        assert_eq!(shared.len(), 1, "one row is the copy");
        shared[0].clone()
    };
    let copy_name = w.app().model.row(copy_id).unwrap().name.clone();
    let note = format!("(with {holder})");
    assert!(
        w.harness.query_by_label(&note).is_some() || w.harness.query_by_value(&note).is_some(),
        "the copy's row names whose job it shares"
    );
    // Its details list that job as the copy's: one deposit for both.
    w.open_details(&copy_name, |d| !d.jobs.is_empty());
    w.harness.step();
    w.harness
        .get_by_label_contains(&format!(" · failed · 8 attempts · with {holder}"));
    w.harness.state_mut().select(None);
    for _ in 0..3 {
        w.harness.step();
    }
    let mut retries: Vec<_> = w.harness.get_all_by_label("Retry").collect();
    assert_eq!(retries.len(), 2, "one a row");
    retries.sort_by(|a, b| a.rect().top().total_cmp(&b.rect().top()));

    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    retries[copy_row].click();
    w.wait("one record for both", |app| {
        app.model.rows().iter().all(|r| {
            matches!(
                app.status_of(r.id),
                Some(DedupStatus::Deposited { .. } | DedupStatus::AlreadyDeposited { .. })
            )
        })
    });
    // The sandbox numbers its records in turn: a second would be sbx-000002.
    for row in w.app().model.rows() {
        let identifier = match w.app().status_of(row.id) {
            Some(
                DedupStatus::Deposited { identifier, .. }
                | DedupStatus::AlreadyDeposited { identifier, .. },
            ) => identifier,
            other => panic!("{other:?}"),
        };
        assert_eq!(identifier, "sbx-000001", "{}", row.name);
    }
    w.harness.get_by_label("Verify deposited (1)");

    // The copy's details keep the deposit made for both, checked from the other's details;
    // once that dataset is removed from the list, still there, checked from a terminal.
    w.open_details(&copy_name, |d| {
        d.jobs.iter().any(|(j, _)| j.state.is_landed())
    });
    w.harness.step();
    w.harness.get_by_label_contains(&format!(
        "Deposited through {holder}: checked from {holder}'s details"
    ));
    w.harness.state().send(Command::Remove { id: holder_id });
    w.wait("the other removed", |app| {
        app.model.row(holder_id).is_none()
    });
    w.harness.state().send(Command::LoadDetails { id: copy_id });
    w.wait("its details read again", |app| {
        app.model.details.as_ref().is_some_and(|d| {
            d.dataset == copy_id && d.jobs.iter().any(|(j, _)| j.dataset_id.is_none())
        })
    });
    w.harness.step();
    w.harness.get_by_label_contains(" · with a removed copy");
    w.harness.get_by_label_contains(&format!(
        "Deposited through a removed copy: checked with `lodge verify {copy_id}`"
    ));
}

#[test]
fn a_sandbox_that_always_fails_ends_failed_and_retry_after_the_faults_stop_deposits_with_the_causes_logged()
 {
    let always_503 = FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    };
    let mut w = Window::open(always_503);
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    w.add_folder(&folder);
    w.harness.get_by_label("Deposit").click();
    w.wait("Failed", |app| {
        app.table.order.len() == 1
            && app.status_of(app.table.order[0]).map(|s| s.kind()) == Some(StatusKind::Failed)
    });
    w.harness.get_by_label_contains("✖ Failed");
    let retries = w.log_of("retry_scheduled");
    assert_eq!(retries.len(), 7, "8 attempts, 7 retries: {retries:?}");
    assert!(
        retries.iter().all(|r| r.contains("503")),
        "each retry names its cause: {retries:?}"
    );

    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("Retry").click();
    w.wait("Deposited after the retry", |app| {
        app.table.order.len() == 1
            && matches!(
                app.status_of(app.table.order[0]),
                Some(DedupStatus::Deposited { .. })
            )
    });
    assert!(
        w.log_of("queued")
            .iter()
            .any(|l| l.contains("re-queued by retry with the same key")),
        "the log shows the re-queue"
    );
    assert!(
        !w.log_of("created").is_empty(),
        "the log shows the record created"
    );
}

#[test]
fn a_deposit_whose_answer_was_lost_reads_deposited_once_the_retry_finds_its_record_and_after_a_restart()
 {
    // A first version deposited puts its one file on the sandbox (one that big is looked
    // up before it is sent again). Then every write is committed and its answer lost: the
    // second version's retry finds by its look-up the record its first attempt made. The
    // store says `existing`; the row says what happened.
    let mut w = Window::open(FaultConfig::default());
    let big = vec![7u8; 2 << 20];
    let id = w.add_folder(&w.lab.folder("soil-cores", &[("cores.bin", &big)]));
    let metadata = |title: &str| lodge::content::Metadata {
        title: title.into(),
        creators: vec![lodge::content::Creator::named("Curie, Marie")],
        publisher: "Lodge test lab".into(),
        publication_year: Some(2026),
        ..lodge::content::Metadata::default()
    };
    let set = |w: &mut Window, title: &str| {
        let before = w.app().model.row(id).unwrap().key;
        w.harness.state().send(Command::SetMetadata {
            id,
            metadata: Box::new(metadata(title)),
            then_deposit: None,
        });
        w.wait("re-keyed", |app| {
            app.model
                .row(id)
                .is_some_and(|r| r.key.is_some() && r.key != before)
        });
    };
    set(&mut w, "Soil cores 2026");
    w.harness.step();
    w.deposit_row(id);
    set(&mut w, "Soil cores 2026, second version");
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig {
            drop_after_commit: 1.0,
            ..FaultConfig::default()
        }));
    w.select(id);
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("landed", |app| {
        app.status_of(id)
            .is_some_and(|s| s.record_identifier().is_some())
    });
    let found_after_lost_answer = |w: &Window| {
        let job = (w.app().model.row(id).unwrap().jobs.values().next()).unwrap();
        assert_eq!(job.state, JobState::Existing, "the store's word: {job:?}");
        match w.app().status_of(id) {
            Some(DedupStatus::Deposited {
                identifier,
                after_lost_answer: true,
                ..
            }) => identifier,
            other => panic!("{other:?}"),
        }
    };
    let identifier = found_after_lost_answer(&w);
    assert_eq!(identifier, "sbx-000002");
    assert!(
        !w.log_of("reconciled").is_empty(),
        "the look-up found it: {:?}",
        w.app().model.log
    );
    w.harness.step();
    assert_eq!(
        w.harness
            .query_all_by_label("✔ Deposited · sbx-000002")
            .count(),
        2,
        "the row's badge and its details'"
    );

    // The next day the row still says so, read from the job's log.
    let mut w = w.reopen();
    w.harness.step();
    assert_eq!(found_after_lost_answer(&w), "sbx-000002");
    w.harness.get_by_label("✔ Deposited · sbx-000002");
}

#[test]
fn a_deposit_and_a_retry_start_at_once_not_at_the_engines_next_look_at_the_queue() {
    // The engine's idle workers look at the queue on a timer only for other processes'
    // jobs: with an hour between looks, what this window queues must wake them itself
    // (the deposit, then its retries at their times, then the Retry).
    let (mut w, id) = Window::with_a_failed_deposit_configured(|config| {
        config.engine.poll = std::time::Duration::from_secs(3600);
    });
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("Retry").click();
    w.wait("Deposited after the retry", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
}

#[test]
fn a_failed_job_is_retried_from_the_history_with_the_same_key() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let key = w.app().model.row(id).unwrap().key;

    w.harness.get_by_label("History").click();
    w.wait("the failed job listed", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.iter().any(|r| r.state == "failed"))
    });
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("Retry").click();
    w.wait("deposited by the retry", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.len() == 1 && h[0].state == "deposited" && h[0].identifier.is_some())
    });
    let job = &w.app().model.history.as_ref().unwrap()[0];
    assert_eq!(
        Some(job.key.as_str()),
        key.map(|k| k.to_hex()).as_deref(),
        "the same job, with the same key"
    );
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "nothing is left to retry"
    );
}

/// A failed job deposited again since, and failed again: its History row retries the
/// later job (the store re-queues only that one), and says which.
#[test]
fn a_failed_job_deposited_again_and_failed_again_retries_the_later_job_from_the_history() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let target = w.app().model.targets[0].scope_id.clone();
    w.harness.state().send(Command::Deposit {
        ids: vec![id],
        target,
    });
    w.harness.get_by_label("History").click();
    w.wait("jobs 1 and 2 failed", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.iter().filter(|r| r.state == "failed").count() == 2)
    });
    w.harness.step();
    assert_eq!(
        w.harness.query_all_by_label("Retry").count(),
        1,
        "job 2's own"
    );
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("Retry job 2").click();
    w.wait("job 2 deposited", |app| {
        app.model.history.as_ref().is_some_and(|h| {
            h.iter().any(|r| r.job == 1 && r.state == "failed")
                && h.iter().any(|r| r.job == 2 && r.state == "deposited")
        })
    });
    w.harness.step();
    w.harness.get_by_label("landed by job 2");
}

#[test]
fn a_failed_job_whose_key_a_later_deposit_landed_offers_no_retry_in_the_history() {
    let (mut w, id) = Window::with_a_failed_deposit();
    // Deposited again (a new job of the same scope) rather than retried.
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    let target = w.app().model.targets[0].scope_id.clone();
    w.harness.state().send(Command::Deposit {
        ids: vec![id],
        target,
    });
    w.harness.get_by_label("History").click();
    w.wait("job 1 failed, job 2 deposited", |app| {
        app.model.history.as_ref().is_some_and(|h| {
            h.iter().any(|r| r.job == 1 && r.state == "failed")
                && h.iter().any(|r| r.job == 2 && r.state == "deposited")
        })
    });
    w.harness.step();
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "job 1 has nothing left to retry"
    );
    w.harness.get_by_label("landed by job 2");
}

#[test]
fn a_failed_job_of_a_dataset_changed_since_offers_no_retry_in_the_history() {
    let (mut w, id) = Window::with_a_failed_deposit();
    // New metadata: a new key, so job 1's content is no longer what the folder holds.
    let mut metadata = w.app().model.row(id).unwrap().metadata.clone();
    metadata.title = "Soil cores 2026, revised".into();
    let before = w.app().model.row(id).unwrap().key;
    w.harness.state().send(Command::SetMetadata {
        id,
        metadata: Box::new(metadata),
        then_deposit: None,
    });
    w.wait("re-keyed", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.key.is_some() && r.key != before)
    });
    w.harness.get_by_label("History").click();
    w.wait("job 1 listed", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.iter().any(|r| r.job == 1 && r.state == "failed"))
    });
    w.harness.step();
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "retry would be refused: the dataset changed since"
    );
    // Its metadata was edited, not its folder scanned: said as either, not as a rescan.
    w.harness.get_by_label("changed since").hover();
    w.wait_for_label_contains(
        "changed since this job was queued (its metadata edited, or its folder scanned again)",
    );
    w.harness.get_by_label_contains("deposit it as it is now.");
}

/// Export CSV and Export JSON in the history write the files `lodge history --csv` and
/// `--json` print: the same columns and fields, times as text, a formula-like title written
/// as text.
#[test]
fn history_export_writes_the_command_lines_csv_and_json() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.open_history();
    w.harness.step();
    w.harness.get_by_label("Export CSV").click();
    w.wait("the CSV written", |app| {
        app.model
            .last_export
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "csv"))
    });
    let csv_path = w.app().model.last_export.clone().unwrap();
    let mut read = csv::Reader::from_path(&csv_path).unwrap();
    assert_eq!(
        read.headers().unwrap(),
        lodge::history_file::CSV_COLUMNS.as_slice()
    );
    let row = read.records().next().unwrap().unwrap();
    assert_eq!(&row[3], "Soil cores 2026");
    assert!(row[11].ends_with('Z'), "a time as text: {}", &row[11]);

    w.harness.get_by_label("Export JSON").click();
    w.wait("the JSON written", |app| {
        app.model
            .last_export
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "json"))
    });
    let json_path = w.app().model.last_export.clone().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
    assert_eq!(json[0]["title"], "Soil cores 2026");
    assert!(
        json[0]["created"].as_str().unwrap().ends_with('Z'),
        "{json}"
    );
    assert!(json[0]["created_at"].is_i64(), "{json}");
    // As `history --json`: whether the dataset was removed, and the target's saved name
    // (none for the built-in sandbox).
    assert_eq!(json[0]["removed"], false, "{json}");
    assert!(json[0]["target_name"].is_null(), "{json}");
}

/// A Retry that cannot re-queue its job says why, for that job: here its dataset was
/// scanned again under another key since, so the fix is to deposit it as it is now.
#[test]
fn a_retry_that_cannot_requeue_its_job_names_the_reason_for_that_job() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let job = w.first_job(id);
    w.retitle(id, ", corrected");
    w.harness.state().send(Command::Retry { jobs: vec![job] });
    let said = format!(
        "Not re-queued: soil-cores (job {job}) was scanned again since, under another key: \
         deposit it as it is now."
    );
    w.wait("the reason", |app| {
        !gui::notices_with(app, &said).is_empty()
    });
}

/// Retry all failed leaves out a failed deposit whose dataset's details hold edits not
/// saved, and names it, as Deposit all ready does: retried as saved, it would land a record
/// the edits then make a new version of.
#[test]
fn retry_all_failed_leaves_out_a_dataset_whose_details_hold_edits_not_saved() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let name = w.app().model.row(id).unwrap().name.clone();
    w.select(id);
    w.replace_text("Description", "Cores from the north plot.");
    w.harness.step();
    w.harness.get_by_label("Retry all failed (1)").click();
    w.wait("the answer", |app| {
        !gui::notices_with(app, "Not retried").is_empty()
    });
    assert_eq!(
        gui::notices_with(
            w.app(),
            &format!(
                "Not retried: {name} — its details hold edits not saved. Save them and \
                      deposit it, or Undo them and retry it"
            )
        )
        .len(),
        1,
        "{:?}",
        w.app().model.log
    );
    assert!(
        matches!(w.app().status_of(id), Some(DedupStatus::Failed { .. })),
        "left as it was: {:?}",
        w.app().status_of(id)
    );
}

/// Retry all failed retries the failed deposits the rows show, as its count counts them:
/// not an earlier key's (the dataset rescanned since), which it could only refuse.
#[test]
fn retry_all_failed_leaves_an_earlier_keys_failed_deposit_unasked() {
    let (mut w, id) = Window::with_a_failed_deposit();
    w.retitle(id, ", corrected");
    w.harness.step();
    w.harness.get_by_label("Retry all failed (0)");
    let target = w.app().model.targets[0].scope_id.clone();
    w.harness.state().send(Command::RetryAllFailed {
        target,
        leave_out: Vec::new(),
    });
    w.wait("the answer", |app| {
        !gui::notices_with(app, "No failed deposits to retry.").is_empty()
    });
    assert!(
        gui::notices_with(w.app(), "Not re-queued").is_empty(),
        "{:?}",
        w.app().model.log
    );
}

#[test]
fn a_failed_job_on_a_target_used_from_the_command_line_names_the_retry_to_run_there() {
    let mut w = Window::open(FaultConfig::default());
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    // Another repository, reached only from the command line, refuses every write.
    let elsewhere = w.runtime.block_on(w.lab.failing_sandbox("elsewhere"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lodge"))
        .env("LODGE_DB", w.lab.path("app/lodge.db"))
        .env("LODGE_CONFIG", w.lab.path("config/config.toml"))
        .env("LODGE_NO_KEYRING", "1")
        .args(["deposit", "--all", "--max-attempts", "1", "--target"])
        .arg(elsewhere.target_url())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    w.harness.get_by_label("History").click();
    w.wait("the command line's failed job", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.iter().any(|r| r.job == 1 && r.state == "failed"))
    });
    w.harness.step();
    w.harness.get_by_label("lodge retry 1");
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "the window cannot reach that target: no button that would only queue it"
    );

    // The dataset's details name it too, under that job (the row's status is the picked
    // target's, the sandbox, where it was never sent).
    w.harness.get_by_label("Datasets").click();
    w.harness.step();
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    w.harness.get_by_label("lodge retry 1");
    assert!(w.harness.query_by_label("Retry").is_none());
}

/// A job queued on a target a terminal's deposit found paused (its token refused) waits for
/// the person, not for its turn: the History says so, and on hover why and what to do.
#[test]
fn a_queued_job_on_a_target_paused_from_the_command_line_says_so_in_the_history() {
    let mut w = Window::open(FaultConfig::default());
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let locked = w
        .runtime
        .block_on(w.lab.sandbox_with_token("locked", "s3cret"));
    gui::terminal_deposit_paused(&w, &w.lab.path("config/config.toml"), &locked.target_url());

    w.harness.get_by_label("History").click();
    w.wait("the command line's queued job", |app| {
        app.model
            .history
            .as_ref()
            .is_some_and(|h| h.iter().any(|r| r.job == 1 && r.state == "queued"))
    });
    w.harness.step();
    w.harness.get_by_label("⏸ paused").hover();
    // A tooltip shows once the pointer has rested a moment.
    for _ in 0..60 {
        w.harness.step();
        if w.harness
            .query_by_label_contains("Queued, and waiting for you, not for its turn")
            .is_some()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    w.harness
        .get_by_label_contains("Queued, and waiting for you, not for its turn");
    w.harness
        .get_by_label_contains("deposit there again from the command line once that is fixed");
}

#[test]
fn a_failed_deposits_error_wraps_under_its_job_and_the_details_leave_the_table_its_room() {
    let (mut w, _) = Window::with_a_failed_deposit();
    w.open_details("soil-cores", |d| {
        d.jobs.iter().any(|(j, _)| j.last_error.is_some())
    });
    for _ in 0..3 {
        w.harness.step();
    }
    // The panel kept about its default width (430 points): it did not grow to the error's
    // length on one line and push the table's statuses and actions off the window.
    let panel_left = w.harness.get_by_label("Deposit attempts").rect().left();
    assert!(
        panel_left > gui::WINDOW[0] - 600.0,
        "the details panel starts at x = {panel_left} of {}",
        gui::WINDOW[0]
    );
    // The error, a long sentence, is there in full, under its job in the panel (the log
    // below has it too).
    assert!(
        w.harness
            .query_all_by_label_contains("gave up after 8 attempts; last: server busy (HTTP 503)")
            .any(|n| n.rect().left() >= panel_left),
        "the error is in the details"
    );
    let retry = w.harness.get_by_label("Retry").rect();
    assert!(
        retry.right() < panel_left,
        "the row's Retry ({retry:?}) is left of the panel"
    );
}

#[test]
fn a_dataset_changed_since_its_scan_is_rescanned_from_its_row_or_its_details_and_then_deposits() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let scanned_key = w.app().model.row(id).and_then(|r| r.key).expect("a key");
    let changed = |w: &mut Window, content: &str| {
        std::fs::write(folder.join("data/cores.csv"), content).unwrap();
        w.harness.get_by_label("Deposit").click();
        w.wait("Changed since scan", |app| {
            matches!(
                app.status_of(id),
                Some(DedupStatus::ChangedSinceScan { .. })
            )
        });
    };
    let rescanned = |w: &mut Window, from: lodge::content::ContentKey| {
        w.wait("the new key", |app| {
            app.model
                .row(id)
                .is_some_and(|r| r.key.is_some_and(|k| k != from) && r.hashing.is_none())
                && app.status_of(id).map(|s| s.kind()) == Some(StatusKind::New)
        });
        w.app().model.row(id).and_then(|r| r.key).unwrap()
    };

    // From the row.
    changed(&mut w, "core,depth\n1,0.6\n");
    w.harness.get_by_label("Rescan").click();
    let second_key = rescanned(&mut w, scanned_key);

    // From the details, beside the badge: the details' Rescan is the one further right.
    changed(&mut w, "core,depth\n1,0.7\n");
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    w.harness.step();
    let mut buttons: Vec<_> = w.harness.get_all_by_label("Rescan").collect();
    assert_eq!(buttons.len(), 2, "one in the row, one in the details");
    buttons.sort_by(|a, b| a.rect().left().total_cmp(&b.rect().left()));
    buttons[1].click();
    rescanned(&mut w, second_key);

    // Re-keyed as the folder is now, it deposits.
    w.deposit_row(id);

    // A folder moved away: the deposit's refusal finds it gone, and the row says so rather
    // than offering a Rescan that cannot work.
    let moved = citable_folder(&w.lab, "moved-away", "Moved away");
    let gone = w.add_folder(&moved);
    std::fs::rename(&moved, moved.with_extension("elsewhere")).unwrap();
    w.harness.get_by_label("Deposit").click();
    w.wait("Folder missing", |app| {
        app.status_of(gone).map(|s| s.kind()) == Some(StatusKind::FolderMissing)
    });
    assert_eq!(w.harness.query_all_by_label("Rescan").count(), 0);
    // A rescan asked for all the same (the command) says what helps instead.
    let metadata = w.app().model.row(gone).unwrap().metadata.clone();
    w.harness.state().send(Command::SetMetadata {
        id: gone,
        metadata: Box::new(metadata),
        then_deposit: None,
    });
    w.wait("the notice", |app| {
        app.notices.current().any(|n| {
            n.text.starts_with("Cannot rescan moved-away: its folder")
                && n.text.contains("is gone (moved or deleted)")
                && n.text
                    .contains("Drop the folder where it is now onto the window")
        })
    });
    // An edit of its metadata is no rescan the person asked for: its notice says what
    // could not be done, and why that needs the folder.
    let mut edited = w.app().model.row(gone).unwrap().metadata.clone();
    edited.description = Some("Cores from the north plot".into());
    w.harness.state().send(Command::SetMetadata {
        id: gone,
        metadata: Box::new(edited),
        then_deposit: None,
    });
    w.wait("the edit's notice", |app| {
        app.notices.current().any(|n| {
            n.text.starts_with(
                "Cannot save the metadata of moved-away (saving it re-keys the folder as it \
                 is now): its folder",
            ) && n.text.contains("is gone (moved or deleted)")
        })
    });
}

#[test]
fn a_license_that_is_not_an_spdx_identifier_gets_a_hint_and_a_button_for_the_one_meant() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    w.harness.get_by_label("License").focus();
    w.harness.get_by_label("License").type_text("CC BY 4.0");
    w.harness.step();
    w.harness.step();
    w.harness
        .get_by_label_contains("Not an SPDX identifier: repositories get it as text only");
    w.harness.get_by_label("Use CC-BY-4.0").click();
    w.harness.step();
    w.harness.step();
    assert!(
        w.harness
            .query_by_label_contains("Not an SPDX identifier")
            .is_none(),
        "the hint goes once the license is an identifier"
    );
    // The keyboard's place is the license's field again, not lost with the button.
    assert!(w.harness.get_by_label("License").is_focused());
    assert_eq!(
        w.harness
            .get_by_label("License")
            .accesskit_node()
            .value()
            .as_deref(),
        Some("CC-BY-4.0")
    );
}

#[test]
fn invalid_metadata_blocks_deposit_and_shows_the_message_next_to_the_field() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder("untitled", &[("a.csv", b"x\n1\n")]);
    let id = w.add_folder(&folder);
    w.select(id);

    let deposit = w.harness.get_by_label("Deposit to Local sandbox");
    assert!(
        deposit.accesskit_node().is_disabled(),
        "Deposit is blocked while the metadata is invalid"
    );
    assert!(
        w.harness
            .get_by_label("Deposit")
            .accesskit_node()
            .is_disabled(),
        "the row's Deposit is blocked too"
    );

    let title_field = w.harness.get_by_label("Title").rect();
    let message = w
        .harness
        .get_by_label_contains("is required: give the dataset a title")
        .rect();
    assert!(
        message.top() >= title_field.bottom() - 1.0 && message.top() - title_field.bottom() < 40.0,
        "the title's message sits right under the title field ({title_field:?} vs {message:?})"
    );
    w.harness
        .get_by_label_contains("At least one creator is required");
    w.harness
        .get_by_label_contains("is required: give the year of publication");
    assert!(
        w.harness
            .query_all_by_label_contains("(--")
            .next()
            .is_none(),
        "the window's messages name no command-line flag"
    );

    // A year that is not a number gets its own message next to the year.
    w.harness.get_by_label("Year").focus();
    w.harness.get_by_label("Year").type_text("20x6");
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label_contains("'20x6' is not a year");
    assert!(w.deposit_blocked());
}

/// Files chosen embargoed in the form need a date: one that is no date is named beside the
/// field and blocks the deposit; a good one is stored with the metadata, and depositing to
/// the local sandbox, which does not enforce it, says so.
#[test]
fn files_embargoed_in_the_form_need_a_date_and_the_sandbox_deposit_says_it_does_not_enforce_it() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    // Below the details panel's fold: scrolled to (an animation), then opened.
    w.scroll_to("File access");
    w.harness.get_by_label("File access").click();
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("Embargoed until").click();
    w.harness.step();
    w.harness.step();
    w.type_into("Date", "30.06.2099");
    w.harness.step();
    w.harness
        .get_by_label_contains("'30.06.2099' is not a date: give the embargo's end as YYYY-MM-DD");
    assert!(
        w.deposit_blocked(),
        "a date that is no date blocks the deposit"
    );

    w.replace_text("Date", "2099-06-30");
    assert!(
        w.harness.query_by_label_contains("is not a date").is_none(),
        "the message goes with the mistake"
    );
    let (level, said) = w.press_for_notice("Deposit to Local sandbox", "does not enforce that");
    assert_eq!(level, LogLevel::Warning, "{said}");
    assert!(
        said.contains("soil-cores: its files are to be embargoed until 2099-06-30"),
        "{said}"
    );
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let stored = w.lab.store("app/lodge.db").dataset(id).unwrap().unwrap();
    assert_eq!(
        stored.metadata.access,
        lodge::content::FileAccess::Embargoed {
            until: "2099-06-30".into()
        }
    );
}

/// Deposit all ready sends what is saved: a dataset whose details hold edits not saved (a
/// draft left by selecting another row, out of sight) is left out of its count, and out of
/// what it sends, and named, its edits kept, and the others go. Saved, it is deposited with
/// them.
#[test]
fn deposit_all_ready_leaves_out_a_dataset_with_edits_not_saved_and_names_it() {
    let mut w = Window::open(FaultConfig::default());
    let edited = w.add_folder(&citable_folder(&w.lab, "plot-1", "Plot one"));
    let other = w.add_folder(&citable_folder(&w.lab, "plot-2", "Plot two"));
    w.edit_title(edited, " EDITED");
    w.select(other);
    // Its count is of what a press sends: plot-2 alone.
    let (level, said) = w.press_for_notice("Deposit all ready (1)", "Not deposited");
    assert_eq!(level, LogLevel::Warning);
    assert_eq!(
        said,
        "Not deposited: plot-1 — its details hold edits not saved. Save them (or Undo), then \
         deposit it: Deposit all ready sends only what is saved."
    );
    w.wait("plot-2 deposited", |app| {
        matches!(app.status_of(other), Some(DedupStatus::Deposited { .. }))
    });
    let row = w.app().model.row(edited).unwrap();
    assert_eq!(row.metadata.title, "Plot one", "the edit not saved");
    assert!(row.jobs.is_empty(), "plot-1 not queued");
    // Its row's own Deposit says on hover that the edits go with it.
    w.harness.get_by_label("Deposit").hover();
    w.wait_for_label("Save the edits in its details (not saved yet), then deposit it with them");
    // Left the only one ready, it holds Deposit all ready back, saying why.
    let all_ready = w.harness.get_by_label("Deposit all ready (0)");
    assert!(all_ready.accesskit_node().is_disabled());
    all_ready.hover();
    w.wait_for_label_contains("1 dataset is ready but has edits not saved in its details");
    // The draft is still there: the window would ask before closing over it.
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
}

/// Deposit all ready of a batch with restricted files, to a target that does not enforce
/// that, says so once for the batch, not once a dataset.
#[test]
fn a_batch_with_restricted_files_is_told_once_that_the_sandbox_does_not_enforce_it() {
    let mut w = Window::open(FaultConfig::default());
    for n in 1..=4 {
        let zenodo = serde_json::json!({
            "title": format!("Closed run {n}"),
            "creators": [{"name": "Curie, Marie"}],
            "publication_date": "2026-03-01",
            "publisher": "Lodge test lab",
            "access_right": "restricted",
        });
        let folder = w.lab.folder(
            &format!("closed-{n}"),
            &[
                ("data.csv", format!("id\n{n}\n").as_bytes()),
                (".zenodo.json", zenodo.to_string().as_bytes()),
            ],
        );
        w.add_folder(&folder);
    }
    let (level, said) = w.press_for_notice("Deposit all ready (4)", "does not enforce that");
    assert_eq!(level, LogLevel::Warning);
    assert!(
        said.starts_with(
            "4 of these datasets have restricted or embargoed files, but Local sandbox"
        ),
        "{said}"
    );
    for _ in 0..5 {
        w.harness.step();
    }
    assert_eq!(
        notices_with(w.app(), "does not enforce that").len(),
        1,
        "one notice for the batch"
    );
}

/// A folder with two files whose names differ only in case is added, with a warning that a
/// server ignoring case keeps one of them where files are kept by name.
#[test]
fn a_dropped_folder_with_names_differing_only_in_case_is_added_with_a_warning() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w
        .lab
        .folder("cased", &[("Data.csv", b"aaaa\n"), ("data.csv", b"bbbb\n")]);
    w.add_folder(&folder);
    let said = notices_with(w.app(), "differ only in case");
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].0, LogLevel::Warning);
    assert!(
        said[0]
            .1
            .starts_with("cased: Data.csv and data.csv differ only in case"),
        "{said:?}"
    );
}

/// A folder removed from the list and dropped again takes up its metadata as it was (its
/// title edited here, not its citation file's), so the same files make the same key and
/// its deposit is a replay of the record made before; the remove confirmation says so.
#[test]
fn a_removed_folder_dropped_again_takes_up_its_metadata() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.retitle(id, " (edited)");
    let key = w.app().model.row(id).unwrap().key;
    let (identifier, _) = w.deposit_row(id);
    w.ask_to_remove(id);
    w.harness.get_by_label_contains(
        "Adding the folder again lists it anew and takes up its metadata as it is now",
    );
    w.harness.get_by_label("Remove").click();
    w.wait("removed", |app| app.model.row(id).is_none());

    let again = w.add_folder(&folder);
    assert_ne!(again, id);
    let row = w.app().model.row(again).unwrap();
    assert_eq!(row.metadata.title, "Soil cores 2026 (edited)");
    assert_eq!(row.key, key, "the same key");
    let said = notices_with(w.app(), "this folder's until it was removed from the list");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].1.starts_with(&format!(
            "Metadata of soil-cores taken from dataset {id} (soil-cores)"
        )),
        "{said:?}"
    );
    assert!(
        matches!(
            w.app().status_of(again),
            Some(DedupStatus::AlreadyDeposited { identifier: ref made, .. }) if *made == identifier
        ),
        "its deposit is a replay of the record made before: {:?}",
        w.app().status_of(again)
    );
}

/// A dropped folder's `CITATION.cff` reference with neither a DOI nor a URL is named, by
/// its title, with where to give it; the one with a DOI becomes a related work.
#[test]
fn a_dropped_folders_citation_reference_without_an_identifier_is_named_with_where_to_give_it() {
    let mut w = Window::open(FaultConfig::default());
    let cff = "cff-version: 1.2.0\nmessage: Cite this dataset\ntitle: Cores\n\
               authors:\n  - family-names: Curie\n    given-names: Marie\n\
               date-released: 2026-01-05\n\
               references:\n\
               \x20 - type: article\n    title: The method\n    doi: 10.1234/method\n\
               \x20 - type: book\n    title: A handbook\n";
    let folder = w.lab.folder(
        "referencing",
        &[
            ("cores.csv", b"depth\n1\n"),
            ("CITATION.cff", cff.as_bytes()),
        ],
    );
    let id = w.add_folder(&folder);
    let said = notices_with(w.app(), "is not sent as a related work");
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].0, LogLevel::Warning);
    assert!(
        said[0]
            .1
            .starts_with("referencing: references[1] ('A handbook') of ")
            && said[0].1.ends_with(
                "CITATION.cff has no doi or url, so it is not sent as a related work: give the \
             work's DOI or address in its details (Related works, as References)."
            ),
        "{said:?}"
    );
    let related = &w.app().model.row(id).unwrap().metadata.related;
    assert_eq!(related.len(), 1, "{related:?}");
    assert_eq!(related[0].identifier, "10.1234/method");
}

/// A dropped folder's `.zenodo.json` that closes its files fills the form's File access;
/// the DOI it gives (a deposit would be a second record) and what it gives that no deposit
/// carries (its community, its grant) are named.
#[test]
fn a_dropped_folders_zenodo_json_restricts_its_files_and_names_its_doi_and_what_lodge_does_not_send()
 {
    let mut w = Window::open(FaultConfig::default());
    let zenodo = serde_json::json!({
        "title": "Closed cores",
        "creators": [{"name": "Curie, Marie"}],
        "access_right": "closed",
        "notes": "Kept at 4 degrees",
        "grants": [{"id": "10.13039/501100004963::12345"}],
        "doi": "10.5281/zenodo.4242",
    });
    let folder = w.lab.folder(
        "closed",
        &[
            ("data.csv", b"id\n1\n"),
            (".zenodo.json", zenodo.to_string().as_bytes()),
        ],
    );
    let id = w.add_folder(&folder);
    let said = notices_with(w.app(), "which Lodge does not send");
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].0, LogLevel::Warning);
    assert!(
        said[0].1.contains(
            ".zenodo.json of closed also gives notes, grants whose funder Lodge cannot name"
        ),
        "{said:?}"
    );
    let said = notices_with(w.app(), "is an id in Zenodo's list of awards");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .1
            .contains("give the funder, its ROR or Crossref Funder ID and the award's number in the Funding field"),
        "{said:?}"
    );
    let said = notices_with(w.app(), "gives the DOI 10.5281/zenodo.4242");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .1
            .contains("a deposit makes a second record with a DOI of its own"),
        "{said:?}"
    );
    w.select(id);
    assert_eq!(
        w.harness
            .get_by_label("File access")
            .accesskit_node()
            .value()
            .as_deref(),
        Some("Restricted")
    );
}

#[test]
fn a_creator_typed_into_a_new_creator_field_lands_whole_as_the_problem_above_it_goes() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder("untitled", &[("a.csv", b"x\n1\n")]);
    let id = w.add_folder(&folder);
    w.select(id);
    w.harness
        .get_by_label_contains("At least one creator is required");
    w.harness.get_by_label("+ Add creator").click();
    w.harness.step();
    w.harness.step();

    // The first key typed removes the problem line above the field; the field keeps its
    // focus (it used to lose it there, and the rest of the name went nowhere).
    // The new field has the keyboard: typing goes into it without a click.
    let name = (egui::accesskit::Role::TextInput, "Name");
    assert!(w.harness.get_by_role_and_label(name.0, name.1).is_focused());
    for chunk in ["H", "opper, ", "Grace"] {
        w.harness
            .get_by_role_and_label(name.0, name.1)
            .type_text(chunk);
        w.harness.step();
        w.harness.step();
    }
    assert!(
        w.harness
            .query_by_label_contains("At least one creator is required")
            .is_none()
    );
    assert_eq!(
        w.harness
            .get_by_role_and_label(egui::accesskit::Role::TextInput, "Name")
            .accesskit_node()
            .value()
            .as_deref(),
        Some("Hopper, Grace")
    );
}

/// The local sandbox's port is its identity (deposits there show as deposited only under
/// it): a second window, whose sandbox has to take another port while the first holds it,
/// leaves the saved port alone, so the next day's window is on the usual one. The second
/// window says so: what it deposits to its local sandbox is listed under its own port.
#[test]
fn a_second_window_does_not_move_the_local_sandbox_to_its_stand_in_port() {
    let first = Window::open(FaultConfig::default());
    let usual = first.app().target_id().to_string();
    let same_place = gui::config(&first.lab, FaultConfig::default());
    let mut second = Window::open_with(support::Lab::new(), same_place);
    assert_ne!(
        second.app().target_id(),
        usual,
        "the second window's sandbox is on a port of its own"
    );
    second.wait("the notice of the other window", |app| {
        !notices_with(app, "Another Lodge window is open").is_empty()
    });
    let said = notices_with(second.app(), "Another Lodge window is open");
    let port = usual.rsplit(':').next().unwrap();
    assert!(
        said[0].1.contains(&format!("on its usual port {port}.")),
        "{said:?}"
    );
    assert_eq!(said[0].0, LogLevel::Warning);
    // The notice stays until closed; the lasting state is in the picker too, which names
    // the stand-in port wherever the window names its local sandbox.
    let own = second
        .app()
        .target_id()
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let label = second.app().model.targets[0].label.clone();
    assert!(
        label.starts_with(&format!("Local sandbox on port {own} — ")),
        "{label}"
    );
    let picker = second
        .harness
        .get_by_role_and_label(egui::accesskit::Role::ComboBox, "Target:");
    assert_eq!(picker.value().as_deref(), Some(label.as_str()));
    drop(second);
    let again = first.reopen();
    assert_eq!(again.app().target_id(), usual);
}

/// Notices sit above the log at the right of the table's side: with the details open at
/// the window's right they cover none of its buttons (a deposit's Verify, at the panel's
/// foot).
#[test]
fn notices_stay_clear_of_the_details_panel() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.open_details("soil-cores", |d| !d.jobs.is_empty());
    let warning = "Another Lodge window is open, with the local sandbox on its usual port \
                   8080. This window's local sandbox is on port 32839 until it closes, and \
                   what it deposits there is listed under that port, as another target.";
    (w.harness.state_mut().model).apply(Update::Notice(lodge::app::Notice::warning(warning)));
    for _ in 0..3 {
        w.harness.step();
    }
    let notice = w.harness.get_by_label(warning).rect();
    let panel_left = w.details_close().left();
    assert!(
        notice.right() < panel_left,
        "the notice at {notice:?} reaches into the details panel from x = {panel_left}"
    );
}

/// When the file in which the window remembers its picked target and the list's order
/// cannot be written, its warning names that file and the system's reason, says what that
/// costs and what to look at.
#[test]
fn a_view_file_that_cannot_be_written_is_named_in_the_warning_with_the_cause() {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    // A folder where the file goes: writing it fails whoever runs the test (root too).
    let view_file = config.paths.view_file.clone();
    std::fs::create_dir_all(&view_file).unwrap();
    let mut w = Window::open_with(lab, config);
    let named = view_file.display().to_string();
    w.wait("the warning", |app| !notices_with(app, &named).is_empty());
    let (level, text) = notices_with(w.app(), &named).remove(0);
    assert_eq!(level, LogLevel::Warning);
    for part in [
        "(os error ",
        "may not open on the target picked now",
        "permissions",
        "free space",
    ] {
        assert!(text.contains(part), "'{part}' missing from: {text}");
    }

    // Sorted twice while the cause stands: said once, not at each change.
    w.add_folder(&w.lab.folder("run1", &[("data.csv", b"1".as_slice())]));
    for header in ["Name", "Name ⏶"] {
        w.harness.get_by_label(header).click();
        for _ in 0..3 {
            w.harness.step();
        }
    }
    assert_eq!(
        notices_with(w.app(), &named).len(),
        1,
        "{:?}",
        w.app().model.log
    );
}

/// The file named is the one the write failed at: here the one written beside the view
/// file first, not the view file, which is as it was.
#[test]
fn a_view_file_write_failing_beside_it_names_the_file_it_failed_at() {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    let beside = config.paths.view_file.with_extension("json.new");
    std::fs::create_dir_all(&beside).unwrap();
    let mut w = Window::open_with(lab, config);
    let named = format!("could not write {} (", beside.display());
    w.wait("the warning", |app| !notices_with(app, &named).is_empty());
}

/// A window 500 points high with `n` citable datasets added and keyed, more than its list
/// shows at once.
fn short_window_overfilled(n: usize) -> Window {
    let mut w = Window::open(FaultConfig::default());
    w.harness.set_size(egui::vec2(WINDOW[0], 500.0));
    let folders: Vec<std::path::PathBuf> = (1..=n)
        .map(|i| citable_folder(&w.lab, &format!("run{i:02}"), &format!("Run {i}")))
        .collect();
    w.drop_paths(&folders.iter().map(|f| f.as_path()).collect::<Vec<_>>());
    w.wait("every folder keyed", |app| {
        (app.model.rows().iter())
            .filter(|r| r.id > 0 && r.key.is_some())
            .count()
            == n
    });
    w
}

/// Show a warning notice (which stays until closed) and let the window draw it.
fn show_warning(w: &mut Window, warning: &str) {
    (w.harness.state_mut().model).apply(Update::Notice(lodge::app::Notice::warning(warning)));
    for _ in 0..3 {
        w.harness.step();
    }
}

/// Notices float over the table's bottom right, where the rows' buttons are. While one
/// shows, the list scrolls on past its last row by as much as the notices cover: at the end
/// of the list, its last row's buttons are clear of them.
#[test]
fn the_last_rows_buttons_scroll_clear_of_the_notices() {
    let mut w = short_window_overfilled(12);
    let warning = "Another Lodge window is open, with the local sandbox on its usual port \
                   8080. This window's local sandbox is on port 32839 until it closes.";
    show_warning(&mut w, warning);
    let name_of = |w: &Window, id: i64| w.app().model.row(id).expect("listed").name.clone();
    let (first, last) = (w.app().table.order[0], *w.app().table.order.last().unwrap());
    let first_row = w.harness.get_by_label(&name_of(&w, first)).rect();
    w.wheel_down_to_the_end(first_row.center());

    let last_row = w.harness.get_by_label(&name_of(&w, last)).rect();
    // The notice's frame reaches a little past its text and its ✖.
    let text = w.harness.get_by_label(warning).rect();
    let close = (w.harness.query_all_by_label("✖"))
        .map(|n| n.rect())
        .find(|r| r.intersects(text.expand(20.0)))
        .expect("the notice's ✖");
    let notice = text.union(close).expand(6.0);
    let in_last_row = |label: &str| {
        (w.harness.query_all_by_label(label))
            .map(|n| n.rect())
            .find(|r| r.center().y > last_row.top() && r.center().y < last_row.bottom())
            .unwrap_or_else(|| panic!("{label} in the last row, at {last_row:?}"))
    };
    for button in ["Deposit", "📂", "🗑"] {
        let at = in_last_row(button);
        assert!(
            !at.intersects(notice),
            "the last row's {button} at {at:?} is under the notice at {notice:?}"
        );
    }
}

/// The history's last rows scroll clear of the notices too: their record links and Retry
/// buttons sit at the right, where the notices float.
#[test]
fn the_historys_last_rows_scroll_clear_of_the_notices() {
    let mut w = short_window_overfilled(14);
    w.harness.get_by_label("Deposit all ready (14)").click();
    w.harness.get_by_label("History").click();
    w.wait("every deposit in the history", |app| {
        app.model.history.as_ref().is_some_and(|h| {
            h.len() == 14
                && h.iter()
                    .all(|r| r.state == "deposited" && r.identifier.is_some())
        })
    });
    let warning = "A warning that stays until it is closed, over the history's last rows.";
    show_warning(&mut w, warning);
    let records: Vec<String> = (w.app().model.history.as_ref().unwrap().iter())
        .map(|r| lodge::wording::short_identifier(r.identifier.as_deref().unwrap()).into_owned())
        .collect();
    let first = w.harness.get_by_label(&records[0]).rect();
    w.wheel_down_to_the_end(first.center());

    let text = w.harness.get_by_label(warning).rect();
    let notice = text.expand(20.0);
    // The history lists its rows as the model holds them: the last is at the end.
    let last = w
        .harness
        .query_by_label(records.last().unwrap())
        .expect("the last row in view at the end")
        .rect();
    assert!(
        !last.intersects(notice),
        "the last row's record link at {last:?} is under the notice at {notice:?}"
    );
}

#[test]
fn a_persons_name_typed_without_a_comma_gets_a_hint_and_a_button_for_family_given() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder("untitled", &[("a.csv", b"x\n1\n")]);
    let id = w.add_folder(&folder);
    w.select(id);
    w.harness.get_by_label("+ Add creator").click();
    w.harness.step();
    w.harness.step();
    let name = (egui::accesskit::Role::TextInput, "Name");
    w.harness
        .get_by_role_and_label(name.0, name.1)
        .type_text("Grace Hopper");
    w.harness.step();
    w.harness.step();
    w.harness
        .get_by_label_contains("No comma: repositories take this as an organisation's name");
    w.harness.get_by_label("Use Hopper, Grace").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(
        w.harness
            .get_by_role_and_label(name.0, name.1)
            .accesskit_node()
            .value()
            .as_deref(),
        Some("Hopper, Grace")
    );
    assert!(w.harness.query_by_label_contains("No comma").is_none());
}

#[cfg(unix)]
#[test]
fn a_dropped_folder_with_a_link_to_data_elsewhere_says_the_link_is_not_deposited() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let elsewhere = w.lab.folder("big-disk", &[("raw.bin", b"raw data")]);
    std::os::unix::fs::symlink(elsewhere.join("raw.bin"), folder.join("raw.bin")).unwrap();
    std::fs::write(folder.join(".DS_Store"), b"finder").unwrap();
    w.drop_paths(&[&folder]);
    w.wait("the left-out notice", |app| {
        app.notices.current().any(|n| n.text.contains("left out"))
    });
    let notice = w
        .app()
        .notices
        .current()
        .find(|n| n.text.contains("left out"))
        .map(|n| n.text.clone())
        .unwrap();
    assert!(
        notice.contains(
            "soil-cores: left out of the dataset, so not deposited: raw.bin (a symbolic link"
        ),
        "{notice}"
    );
    assert!(
        !notice.contains(".DS_Store"),
        "system files are not news: {notice}"
    );

    // The notice goes; the dataset's details keep saying it.
    w.open_details("soil-cores", |d| !d.left_out.is_empty());
    w.harness.step();
    w.harness.get_by_label("Left out (1)");
    w.harness
        .get_by_label("raw.bin (a symbolic link, never followed: not deposited)");
}

#[test]
fn clicking_a_rows_name_selects_the_dataset_and_opens_its_details() {
    let mut w = Window::open(FaultConfig::default());
    let soil = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let ocean = citable_folder(&w.lab, "ocean-survey", "Ocean survey");
    let soil_id = w.add_folder(&soil);
    let ocean_id = w.add_folder(&ocean);
    w.harness.step();

    // A pointer click on the text itself, as a person clicks a name.
    w.harness.get_by_label("ocean-survey").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.state().selected, Some(ocean_id));
    let title = |w: &Window| {
        w.harness
            .get_by_role_and_label(egui::accesskit::Role::TextInput, "Title")
            .accesskit_node()
            .value()
    };
    assert_eq!(title(&w).as_deref(), Some("Ocean survey"));

    w.harness.get_by_label("soil-cores").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.state().selected, Some(soil_id));
    assert_eq!(title(&w).as_deref(), Some("Soil cores 2026"));
}

#[test]
fn a_long_name_wraps_in_the_details_and_leaves_every_row_its_deposit_button() {
    let mut w = Window::open(FaultConfig::default());
    let long = "ocean-survey-2026-north-atlantic-transect-leg-3-ctd-casts-and-water-samples-from-the-rv-meteor-cruise-m199-stations-1-to-40";
    let ocean = citable_folder(&w.lab, long, "Ocean survey");
    let soil = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let ocean_id = w.add_folder(&ocean);
    let soil_id = w.add_folder(&soil);
    for id in [ocean_id, soil_id] {
        w.select(id);
        let details_left = w.details_close().left();
        let deposits = w.harness.query_all_by_label("Deposit").collect::<Vec<_>>();
        assert_eq!(deposits.len(), 2, "a Deposit button on each row");
        for d in deposits {
            assert!(
                d.rect().right() < details_left,
                "dataset {id} selected: a row's Deposit at {:?} is under the details panel \
                 (from x = {details_left})",
                d.rect()
            );
        }
    }
    // The details name the folder: two datasets may share a name.
    w.harness.get_by_label(soil.to_str().unwrap());
}

#[test]
fn with_the_details_open_the_buttons_above_the_table_wrap_rather_than_go_under_the_panel() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    // A laptop's window, a little narrower than the tests' usual one.
    w.harness.set_size(egui::vec2(1024.0, WINDOW[1]));
    w.select(id);
    let details_left = w.details_close().left();
    let verify = w.harness.get_by_label("Verify deposited (1)").rect();
    assert!(
        verify.right() < details_left,
        "Verify deposited at {verify:?} runs under the details (from x = {details_left})"
    );
}

#[test]
fn with_the_details_open_in_a_narrow_window_the_status_stays_in_view_and_the_key_gives_way() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    // Wide, nothing selected: every column.
    for header in ["Name", "Files", "Size", "Content key", "Status", "Actions"] {
        w.harness.get_by_label(header);
    }
    // The window's minimum size (main.rs), the details open: what a person acts on stays.
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.select(id);
    w.harness.step();
    let details_left = w.details_close().left();
    let status = w.harness.get_by_label("Status").rect();
    assert!(
        status.right() < details_left,
        "the Status header at {status:?} is under the details (from x = {details_left})"
    );
    let in_the_table: Vec<egui::Rect> = w
        .harness
        .query_all_by_label_contains("Deposited")
        .map(|n| n.rect())
        .filter(|r| r.left() < details_left)
        .collect();
    assert!(
        !in_the_table.is_empty(),
        "the row's status is under the details (from x = {details_left})"
    );
    for gone in ["Content key", "Files", "Size"] {
        assert!(
            w.harness.query_by_label(gone).is_none(),
            "{gone} gives way to the status"
        );
    }
    // The details still show the key.
    let key = w.app().model.row(id).and_then(|r| r.key).expect("keyed");
    let shown = &key.to_hex()[..12];
    assert!(
        w.harness
            .query_all_by_label_contains(shown)
            .any(|n| n.rect().left() >= details_left),
        "the details show the key {shown}"
    );

    // A wider window gives the columns back, the details still open: the files and size
    // first; the key once the status keeps its room beside it too.
    w.harness.set_size(egui::vec2(WINDOW[0], WINDOW[1]));
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("Size");
    w.harness.set_size(egui::vec2(1600.0, WINDOW[1]));
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("Content key");
}

#[test]
fn at_the_smallest_window_with_the_details_open_a_rows_actions_scroll_into_reach_and_work() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    // The window's minimum size (main.rs): the table's columns are wider than what the
    // details panel leaves them.
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.select(id);
    let details_left = w.details_close().left();
    let row_y = w.harness.get_by_label("Deposit").rect().center().y;
    w.swipe_left_until(row_y, |w| {
        w.harness.get_by_label("Deposit").rect().right() <= details_left
    });
    let deposit = w.harness.get_by_label("Deposit").rect();
    assert!(
        deposit.right() <= details_left,
        "Deposit at {deposit:?} stays under the details (from x = {details_left})"
    );
    w.harness.get_by_label("Deposit").click();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
}

#[test]
fn at_800_by_600_a_rows_actions_are_in_view_with_the_details_closed_and_open() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.harness.set_size(egui::vec2(800.0, 600.0));
    for _ in 0..3 {
        w.harness.step();
    }
    let in_view = |w: &Window, right_edge: f32| {
        for button in ["Open record", "📂", "🗑"] {
            let at = (w.harness.query_all_by_label(button))
                .map(|n| n.rect())
                .find(|r| r.left() < right_edge)
                .unwrap_or_else(|| panic!("{button} in the row"));
            assert!(
                at.right() <= right_edge,
                "{button} at {at:?} is past x = {right_edge}"
            );
        }
    };
    in_view(&w, 800.0);
    w.select(id);
    let details_left = w.details_close().left();
    in_view(&w, details_left);
    // The bar wraps there: the status choice is never at the start of a line, its label
    // "Status:" left at the end of the line above.
    let choice = w.harness.get_by_label("Status:").rect();
    let search = w.harness.get_by_label("Search:").rect();
    assert!(
        choice.left() > search.left() + 30.0,
        "the choice at {choice:?} starts a line (the search field is at {search:?})"
    );
}

#[test]
fn at_the_smallest_window_the_historys_last_column_scrolls_into_view() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.open_history();
    w.harness.step();
    let updated = |w: &Window| w.harness.get_by_label("Updated (UTC)").rect();
    let y = updated(&w).center().y + 22.0;
    w.swipe_left_until(y, |w| updated(w).right() <= 800.0);
    assert!(
        updated(&w).right() <= 800.0,
        "the Updated column at {:?} stays past the window's right edge",
        updated(&w)
    );
}

/// A window, its deposits paused, whose one dataset (soil-cores, the id returned) has a
/// deposit queued and whose remove confirmation is open.
fn remove_asked_with_a_deposit_queued() -> (Window, i64) {
    let lab = support::Lab::new();
    let mut config = gui::config(&lab, FaultConfig::default());
    config.start_paused = true;
    let mut w = Window::open_with(lab, config);
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit queued", |app| {
        gui::notices_with(app, "1 deposit queued; deposits are paused").len() == 1
    });
    w.ask_to_remove(id);
    (w, id)
}

/// Removing a dataset whose deposit still waits on the queue ends that deposit rejected
/// once a worker reaches it: the confirmation says so before it is done.
#[test]
fn removing_a_dataset_with_a_deposit_on_the_queue_says_what_becomes_of_it() {
    let (w, _) = remove_asked_with_a_deposit_queued();
    w.harness.get_by_label("Remove soil-cores?");
    w.harness.get_by_label(
        "• Local sandbox: waits on the queue; once removed, it ends rejected when reached. \
         Add the folder again to send it.",
    );
    assert!(
        w.harness
            .query_by_label_contains("being sent now")
            .is_none(),
        "nothing is being sent"
    );
}

/// The remove confirmation's list follows the deposits: one that lands while it is read
/// says so in fewer words. Its buttons stay where they were.
#[test]
fn the_remove_dialogs_buttons_stay_put_when_a_deposit_lands_meanwhile() {
    let (mut w, id) = remove_asked_with_a_deposit_queued();
    w.harness.get_by_label_contains("waits on the queue");
    let before = w.harness.get_by_label("Remove").rect();

    w.app().send(Command::Resume);
    w.wait("the deposit to land", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    w.harness.step();
    w.harness.get_by_label_contains("the record stays");
    let after = w.harness.get_by_label("Remove").rect();
    assert_eq!(before, after, "the button moved");
}

/// A deposit queued from a terminal while the remove confirmation is read adds a line to
/// its list; the buttons stay where they were (the list scrolls within its first height).
#[test]
fn the_remove_dialogs_buttons_stay_put_when_a_deposit_is_queued_meanwhile() {
    let (mut w, id) = remove_asked_with_a_deposit_queued();
    w.harness.get_by_label_contains("waits on the queue");
    let before = w.harness.get_by_label("Remove").rect();

    let store = lodge::store::Store::open(&w.lab.path("app/lodge.db")).unwrap();
    let key = w.app().model.row(id).unwrap().key.unwrap();
    let elsewhere = "sandbox+http://127.0.0.1:9";
    store
        .upsert_target(elsewhere, elsewhere, "a sandbox")
        .unwrap();
    store
        .enqueue_deposits(
            elsewhere,
            &[(id, key)],
            std::time::Duration::from_secs(3600),
        )
        .unwrap();
    w.wait("the terminal's deposit seen", |app| {
        app.model
            .removal_deposits(id)
            .is_some_and(|d| d.jobs.iter().any(|j| j.target == elsewhere))
    });
    w.harness.step();
    let after = w.harness.get_by_label("Remove").rect();
    assert_eq!(before, after, "the button moved");
}

/// The remove confirmation names each target the dataset went to, as the window names it
/// elsewhere, with the record a deposit there made, and what removing does to it: a record
/// stays.
#[test]
fn the_remove_confirmation_names_each_deposits_target_record_and_fate() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let (identifier, _) = w.deposit_row(id);
    w.ask_to_remove(id);
    w.harness
        .get_by_label("Its deposit, and what removing it does to each:");
    w.harness.get_by_label(&format!(
        "• Local sandbox: deposited as {}; the record stays.",
        lodge::wording::short_identifier(&identifier)
    ));
    assert!(
        w.harness
            .query_by_label_contains("waits on the queue")
            .is_none(),
        "nothing waits"
    );
}

/// Change a file of dataset `id`'s `folder`, have the window look for changed folders (as
/// it does when it comes back into focus), and press the row's Rescan: returns the new key.
fn change_and_rescan(w: &mut Window, folder: &std::path::Path, id: i64) -> ContentKey {
    let before = w.app().model.row(id).and_then(|r| r.key).expect("keyed");
    std::fs::write(folder.join("data/cores.csv"), "core,depth\n1,0.6\n").unwrap();
    w.app().send(Command::CheckFolders);
    w.wait("Changed since scan", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::ChangedSinceScan)
    });
    w.harness.get_by_label("Rescan").click();
    w.wait("the new key", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.key.is_some_and(|k| k != before) && r.hashing.is_none())
    });
    w.app().model.row(id).and_then(|r| r.key).unwrap()
}

/// Pause sending, press the only Deposit and wait until dataset `id`'s deposit is queued.
fn deposit_paused(w: &mut Window, id: i64) {
    if w.app().model.engine_running {
        w.harness.get_by_label("⏸ Pause").click();
        w.wait("sending paused", |app| !app.model.engine_running);
    }
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit queued", |app| {
        app.status_of(id) == Some(DedupStatus::Queued { paused: true })
    });
}

/// A dataset deposited, then changed and rescanned, its new key's deposit on the queue:
/// the remove confirmation lists the record the earlier key made there, which stays,
/// beside the queued deposit, which ends rejected.
#[test]
fn the_remove_confirmation_lists_an_earlier_keys_record_beside_the_new_keys_queued_deposit() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (identifier, _) = w.deposit_row(id);
    let earlier = w.app().model.row(id).and_then(|r| r.key).expect("keyed");
    change_and_rescan(&mut w, &folder, id);
    deposit_paused(&mut w, id);

    w.ask_to_remove(id);
    w.harness
        .get_by_label("Its deposits, and what removing it does to each:");
    w.harness.get_by_label(
        "• Local sandbox: waits on the queue; once removed, it ends rejected when reached. \
         Add the folder again to send it.",
    );
    w.harness.get_by_label(&format!(
        "• Local sandbox, earlier key {}: deposited as {}; the record stays.",
        earlier.short(),
        lodge::wording::short_identifier(&identifier)
    ));
}

/// A deposit queued, then the dataset's metadata edited (a new key) and that queued too:
/// the remove confirmation lists the earlier key's deposit still on the queue, which ends
/// rejected when reached whether or not the dataset is removed.
#[test]
fn the_remove_confirmation_lists_an_earlier_keys_deposit_still_on_the_queue() {
    let (mut w, id) = deposit_asked_while_paused();
    let earlier = w.app().model.row(id).and_then(|r| r.key).expect("keyed");
    w.retitle(id, " (second version)");
    deposit_paused(&mut w, id);

    w.ask_to_remove(id);
    w.harness.get_by_label(
        "• Local sandbox: waits on the queue; once removed, it ends rejected when reached. \
         Add the folder again to send it.",
    );
    w.harness.get_by_label(&format!(
        "• Local sandbox, earlier key {}: waits on the queue; it ends rejected when reached, \
         removed or not: the dataset changed since it was queued.",
        earlier.short()
    ));
}

/// A window whose sandbox answers every deposit 429 with a Retry-After of a minute, which
/// its engine waits out (the tests' engine caps a Retry-After at 50 ms, which would have the
/// job sent again, and seen as being sent, while the test looks): a deposit stays waiting
/// to retry, well inside the tests' two-minute deadline.
fn told_to_come_back_in_a_minute() -> Window {
    let lab = support::Lab::new();
    let mut config = gui::config(
        &lab,
        FaultConfig {
            rate_limit: 1.0,
            retry_after_secs: 60,
            ..FaultConfig::default()
        },
    );
    config.engine.retry.retry_after_cap = std::time::Duration::from_secs(600);
    Window::open_with(lab, config)
}

/// While a dataset's deposit waits to be tried again, its row shows the countdown and no
/// Deposit; its details agree: their Deposit is disabled, and its hover says why in the
/// row's words.
#[test]
fn the_details_offer_no_deposit_while_its_deposit_waits_to_retry() {
    let mut w = told_to_come_back_in_a_minute();
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit to wait for its retry", |app| {
        matches!(app.status_of(id), Some(DedupStatus::WaitingToRetry { .. }))
    });
    w.select(id);
    assert!(
        w.harness.query_by_label("Deposit").is_none(),
        "the row's Deposit"
    );
    assert!(w.deposit_blocked(), "the details' Deposit is offered");
    w.scroll_to("Deposit to Local sandbox");
    w.harness.get_by_label("Deposit to Local sandbox").hover();
    w.wait_for_label_contains("this deposit is on the queue already, with the same key");
    let hover = w
        .harness
        .get_by_label_contains("this deposit is on the queue already")
        .value()
        .unwrap_or_default();
    assert!(hover.starts_with("⟳ Retry in "), "{hover}");
}

/// A folder being added is hashed before its scan is recorded: its row shows "—" for its
/// files, size and key, not a "0" and "0 B" that read as an empty folder.
#[test]
fn a_folder_being_hashed_shows_no_counts_until_its_scan_ends() {
    let mut w = Window::open(FaultConfig::default());
    // The message the hashing task sends for a folder dropped on the window.
    w.harness.state_mut().model.apply(Update::HashStarted {
        row: -1,
        path: w.lab.path("big-survey").to_string_lossy().into_owned(),
        name: "big-survey".into(),
    });
    w.harness.state_mut().model.apply(Update::HashProgress {
        row: -1,
        done: 3 << 20,
        total: 100 << 20,
    });
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("big-survey");
    assert!(w.harness.query_by_label("0 B").is_none(), "a size of 0 B");
    assert!(
        w.harness.query_by_label("0").is_none(),
        "a count of 0 files"
    );
    assert_eq!(
        w.harness.query_all_by_label("—").count(),
        3,
        "files, size and key not known yet"
    );
}

#[test]
fn depositing_a_dataset_already_on_the_queue_says_so_and_queues_nothing_more() {
    let lab = support::Lab::new();
    let mut config = gui::config(&lab, FaultConfig::default());
    config.start_paused = true;
    let mut w = Window::open_with(lab, config);
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the first deposit queued", |app| {
        gui::notices_with(app, "1 deposit queued; deposits are paused").len() == 1
    });
    let job = w.first_job(id);

    // Its details offer no Deposit while the row waits on the queue (as the row offers
    // none); asked for again all the same, the deposit is not queued twice.
    w.select(id);
    assert!(w.deposit_blocked(), "the details' Deposit is offered");
    let target = w.app().target_id().to_string();
    w.app().send(Command::Deposit {
        ids: vec![id],
        target,
    });
    w.wait("the answer", |app| {
        !gui::notices_with(
            app,
            "1 deposit was on the queue already, so not queued again",
        )
        .is_empty()
    });
    assert_eq!(
        gui::notices_with(w.app(), "1 deposit queued").len(),
        1,
        "no second 'queued' notice"
    );
    let jobs: Vec<i64> = w
        .app()
        .model
        .row(id)
        .unwrap()
        .jobs
        .values()
        .map(|j| j.id)
        .collect();
    assert_eq!(jobs, vec![job], "still the one job");
}

#[test]
fn a_dataset_deposited_again_still_shows_the_deposit_that_made_its_record() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let (identifier, url) = w.deposit_row(id);
    let deposited = Some(DedupStatus::Deposited {
        identifier: identifier.clone(),
        url,
        after_lost_answer: false,
    });

    // Deposit again from the details: a replay, no request.
    w.select(id);
    w.harness
        .get_by_label("Deposit to Local sandbox")
        .click_accesskit();
    w.wait("the replay", |app| {
        app.model.log.iter().any(|l| l.kind == "replay")
    });
    for _ in 0..3 {
        w.harness.step();
    }
    assert_eq!(w.app().status_of(id), deposited, "not 'Already deposited'");

    // And so after a restart.
    let mut w = w.reopen();
    w.wait("the rows", |app| !app.model.rows().is_empty());
    assert_eq!(w.app().status_of(id), deposited);
}

#[test]
fn arrow_keys_move_the_selection_through_the_table_and_escape_closes_the_details() {
    let mut w = Window::open(FaultConfig::default());
    for name in ["run1", "run2", "run3"] {
        w.add_folder(&w.lab.folder(name, &[("data.csv", name.as_bytes())]));
    }
    let order = w.app().table.order.clone();
    assert_eq!(order.len(), 3);
    w.press(egui::Key::ArrowDown);
    assert_eq!(
        w.app().selected,
        Some(order[0]),
        "Down selects the first row"
    );
    w.press(egui::Key::ArrowDown);
    w.press(egui::Key::ArrowDown);
    w.press(egui::Key::ArrowDown);
    assert_eq!(w.app().selected, Some(order[2]), "and stops at the last");
    w.harness
        .query_by_label("Save metadata")
        .expect("its details are open");
    w.press(egui::Key::ArrowUp);
    assert_eq!(w.app().selected, Some(order[1]));
    w.press(egui::Key::Escape);
    assert_eq!(w.app().selected, None, "Escape closes the details");
    assert!(w.harness.query_by_label("Save metadata").is_none());

    // In a text field the keys are the field's: Escape leaves the field, a second closes.
    w.press(egui::Key::ArrowDown);
    w.harness.get_by_label("Title").focus();
    w.harness.step();
    w.press(egui::Key::ArrowDown);
    assert_eq!(
        w.app().selected,
        Some(order[0]),
        "typing moves no selection"
    );
    // (Down left the one-line field for the widget below it, as egui does.)
    w.harness.get_by_label("Title").focus();
    w.harness.step();
    w.press(egui::Key::Escape);
    assert_eq!(
        w.app().selected,
        Some(order[0]),
        "Escape left the field only"
    );
    w.press(egui::Key::Escape);
    assert_eq!(w.app().selected, None);

    // A button with the keyboard's focus (Tab reached it) leaves them to the table: Down
    // selects, the focus stays where it was, and one Escape closes the details.
    w.harness.get_by_label("Datasets").focus();
    w.harness.step();
    w.press(egui::Key::ArrowDown);
    assert_eq!(w.app().selected, Some(order[0]), "Down on a focused button");
    assert!(
        w.harness.get_by_label("Datasets").is_focused(),
        "focus kept"
    );
    w.press(egui::Key::ArrowDown);
    assert_eq!(w.app().selected, Some(order[1]));
    w.press(egui::Key::Escape);
    assert_eq!(w.app().selected, None, "one Escape");
}

/// Tab from the search field walks the table's header and its rows' buttons, each a
/// widget that says what it is and draws its focus: no cell of a row is a Tab stop of its
/// own (they drew nothing, five a row).
#[test]
fn tab_through_the_table_stops_only_at_named_widgets() {
    let mut w = Window::open(FaultConfig::default());
    for name in ["run1", "run2"] {
        w.add_folder(&w.lab.folder(name, &[("data.csv", name.as_bytes())]));
    }
    w.harness.step();
    w.harness.get_by_label("Search:").focus();
    w.harness.step();
    let mut reached = Vec::new();
    for _ in 0..16 {
        w.harness.key_press(egui::Key::Tab);
        w.harness.step();
        w.harness.step();
        let focused = w.harness.query_by(|node| node.is_focused());
        let label = focused.and_then(|n| {
            n.accesskit_node()
                .label()
                .or_else(|| n.accesskit_node().value())
        });
        reached.push(label.clone().unwrap_or_default());
        assert!(
            label.is_some_and(|l| !l.trim().is_empty()),
            "an unnamed Tab stop after {reached:?}"
        );
    }
    assert!(
        reached.iter().any(|l| l == "🗑"),
        "a row's button: {reached:?}"
    );
}

/// A row's Deposit pressed by the keyboard goes once the deposit starts: the focus moves
/// to the row's next button, not out of the window (the next Tab started over at the top).
/// A creator's ✖ pressed by the keyboard takes its row: the focus stays in the form.
#[test]
fn the_focus_stays_in_place_when_the_focused_button_goes() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.step();
    w.harness.get_by_label("Deposit").focus();
    w.harness.step();
    w.harness.key_press(egui::Key::Enter);
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    w.harness.run_steps(3);
    let row = w.harness.get_by_label("soil-cores").rect();
    let focused = w
        .harness
        .query_by(|n| n.is_focused())
        .expect("a widget has the focus");
    let label = focused.accesskit_node().label().unwrap_or_default();
    assert!(
        (focused.rect().center().y - row.center().y).abs() < 4.0,
        "the focus is on the row's line: {label} at {:?}, the row at {row:?}",
        focused.rect()
    );

    // In the details' form: two creators, the first's ✖ pressed by the keyboard.
    w.select(id);
    w.harness.get_by_label("+ Add creator").click();
    w.harness.run_steps(2);
    let creators = w.harness.get_by_label("Creators").rect();
    let details = w.details_close();
    // The creators' ✖ are below their heading (the details' own ✖, which closes them, is
    // above).
    let first_remove = w
        .harness
        .query_all_by_label("✖")
        .filter(|n| n.rect().top() > creators.top() && n.rect().left() > details.left())
        .min_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("a creator's ✖");
    first_remove.focus();
    w.harness.step();
    w.harness.key_press(egui::Key::Enter);
    w.harness.run_steps(3);
    assert_eq!(w.app().selected, Some(id), "the details stay open");
    let focused = w
        .harness
        .query_by(|n| n.is_focused())
        .expect("still a widget with the focus");
    assert!(
        focused.rect().left() >= details.left() && focused.rect().top() > creators.top(),
        "the focus stays in the creators: {:?} at {:?}",
        focused.accesskit_node().label(),
        focused.rect()
    );
}

/// A focused row button that goes out of sight unpressed (its row scrolled away as Down
/// moves the selection) leaves no focus behind, rather than hand it to the row that
/// scrolled into its place, where Enter would press another dataset's button.
#[test]
fn a_focused_button_scrolled_out_of_sight_hands_the_focus_to_no_other_row() {
    let mut w = Window::open(FaultConfig::default());
    let db = w.lab.path("app/lodge.db");
    let folders: Vec<String> = (1..=40)
        .map(|n| w.lab.numbered_folder(n).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["add"];
    args.extend(folders.iter().map(String::as_str));
    gui::lodge_elsewhere(&db, &[], &args);
    w.wait("the terminal's datasets", |app| {
        app.model.rows().len() == 40
    });
    w.harness.step();
    let first = w.row_id("ds001");
    w.select(first);
    // The first row's 🗑, focused by the keyboard.
    w.harness
        .query_all_by_label("🗑")
        .min_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("a row's 🗑")
        .focus();
    w.harness.step();
    for _ in 0..39 {
        w.press(egui::Key::ArrowDown);
    }
    assert!(
        w.harness.query_by_label("ds001").is_none(),
        "the first row scrolled out of sight"
    );
    let focused = w.harness.query_by(|n| n.is_focused());
    assert!(
        focused.is_none(),
        "no other row's button took the focus: {:?}",
        focused.map(|n| n.accesskit_node().label())
    );
}

/// The log shows a long dataset name shortened, so the event's words stay on the line;
/// Copy puts the lines on the clipboard whole, each with its date and time, and says so
/// for a moment (a clipboard shows nothing of itself).
#[test]
fn the_log_shortens_a_long_name_and_copy_gives_whole_lines_with_their_date() {
    let mut w = Window::open(FaultConfig::default());
    let long = "coastal-sediment-cores-from-the-north-sea-survey-2026-station-42";
    w.add_folder(&w.lab.folder(long, &[("data.csv", b"t,v\n1,2\n")]));
    w.wait("the added line", |app| {
        app.model.log.iter().any(|l| l.kind == "added")
    });
    w.harness.run_steps(2);
    let added = |app: &lodge::ui::LodgeApp| {
        let line = app.model.log.iter().find(|l| l.kind == "added").unwrap();
        (
            lodge::ui::log_panel::line_text(app, line),
            lodge::ui::log_panel::copied_line(app, line),
        )
    };
    let (shown, whole) = added(w.app());
    assert!(
        shown.contains("coastal-sediment-cores-from-the-north-s…: added"),
        "{shown}"
    );
    assert!(whole.contains(&format!("{long}: added")), "{whole}");
    let copied = w.copied_by("Copy").expect("copied");
    assert!(copied.lines().any(|l| l == whole), "{copied}");
    // The date and time in full, UTC: `2026-12-08T00:04:30Z`.
    let stamp = whole.split(' ').next().unwrap();
    assert!(
        stamp.len() == 20 && stamp.as_bytes()[10] == b'T' && stamp.ends_with('Z'),
        "{whole}"
    );
    let count = copied.lines().count();
    w.harness.get_by_label(&format!(
        "{count} {} copied",
        if count == 1 { "line" } else { "lines" }
    ));
}

/// The zoom a person sets (Ctrl+plus) is kept with what the window remembers of itself,
/// as soon as it changes, and the window opens at it again: larger text is not to be set
/// again at each start.
#[test]
fn the_zoom_is_remembered_and_the_window_opens_at_it_again() {
    let mut w = Window::open(FaultConfig::default());
    w.harness.run_steps(2);
    w.harness.ctx.set_zoom_factor(1.5);
    w.harness.run_steps(3);
    let on_disk = std::fs::read_to_string(w.lab.path("app/window-view.json")).expect("written");
    let memory: lodge::ui::ViewMemory = serde_json::from_str(&on_disk).expect("readable");
    assert_eq!(memory.zoom_percent, Some(150));

    let mut w = w.reopen();
    w.harness.run_steps(2);
    assert_eq!(w.harness.ctx.zoom_factor(), 1.5);
}

/// The window loads the newest few hundred events of the log: when there are earlier
/// ones, the log panel says where they are, rather than pass the newest off as all.
#[test]
fn the_log_panel_says_where_the_events_it_did_not_load_are() {
    let lab = support::Lab::new();
    std::fs::create_dir_all(lab.path("app")).unwrap();
    let store = lab.store("app/lodge.db");
    support::log_filler_events(&store, 600);
    drop(store);
    let cfg = gui::config(&lab, FaultConfig::default());
    let mut w = Window::open_with(lab, cfg);
    w.harness.run_steps(2);
    assert!(w.app().model.earlier_events);
    w.harness
        .get_by_label("· earlier events: `lodge log --all`");

    // A log that fits says nothing of the kind.
    let mut fresh = Window::open(FaultConfig::default());
    fresh.harness.run_steps(2);
    assert!(!fresh.app().model.earlier_events);
    assert!(
        fresh
            .harness
            .query_by_label("· earlier events: `lodge log --all`")
            .is_none()
    );
}

/// The log's lines take the keyboard's focus (a click on them, or Tab): Home shows the
/// first line, End the newest, Page Up and Down a page, and Up and Down scroll a line
/// rather than move the table's selection.
#[test]
fn the_logs_lines_scroll_by_keyboard_once_focused() {
    let mut w = Window::open(FaultConfig::default());
    let mut ids = Vec::new();
    for i in 0..12 {
        let name = format!("run{i:02}");
        ids.push(w.add_folder(&w.lab.folder(&name, &[("data.csv", name.as_bytes())])));
    }
    // Every folder's line in the log, and drawn: a line that came in the last frame shows
    // from the next (the log follows its newest line at a frame's end).
    w.wait("every folder's line in the log", |app| {
        app.model.log.iter().filter(|l| l.kind == "added").count() == 12
    });
    w.select(ids[3]);
    w.harness.run_steps(2);
    let line = |w: &Window, i: usize| {
        let app = w.app();
        lodge::ui::log_panel::line_text(app, &app.model.log[i])
    };
    let shows = |w: &Window, text: &str| w.harness.query_by_label(text).is_some();
    let (first, newest) = (line(&w, 0), line(&w, w.app().model.log.len() - 1));
    assert!(shows(&w, &newest), "the log follows its newest line");
    assert!(!shows(&w, &first), "more lines than fit: {first}");

    w.harness.get_by_label_contains("Log lines").click();
    w.harness.step();
    assert!(w.harness.get_by_label_contains("Log lines").is_focused());
    w.press(egui::Key::Home);
    assert!(shows(&w, &first), "Home: the first line");
    assert!(!shows(&w, &newest));

    w.press(egui::Key::ArrowDown);
    assert_eq!(w.app().selected, Some(ids[3]), "Down scrolled the log only");
    assert!(!shows(&w, &first), "Down: one line on");
    w.press(egui::Key::ArrowUp);
    assert!(shows(&w, &first), "Up: one line back");
    assert_eq!(w.app().selected, Some(ids[3]));

    w.press(egui::Key::End);
    assert!(shows(&w, &newest), "End: the newest line");
    assert!(!shows(&w, &first));
    w.press(egui::Key::PageUp);
    assert!(!shows(&w, &newest), "Page Up: a page back");

    // Once the focus leaves the lines, Down moves through the table again.
    w.harness.get_by_label("Datasets").focus();
    w.harness.step();
    w.press(egui::Key::ArrowDown);
    assert_eq!(w.app().selected, Some(ids[4]));
}

#[test]
fn the_next_dataset_selected_opens_its_details_at_the_top() {
    let mut w = Window::open(FaultConfig::default());
    let soil_id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let ocean_id = w.add_folder(&citable_folder(&w.lab, "ocean-survey", "Ocean survey"));
    // Short enough that the details scroll.
    w.harness.set_size(egui::vec2(WINDOW[0], 420.0));
    w.select(soil_id);
    w.harness.get_by_label("Version").scroll_to_me();
    for _ in 0..3 {
        w.harness.step();
    }
    let close = |w: &Window| w.details_close();
    assert!(close(&w).top() < 0.0, "scrolled down: {:?}", close(&w));

    w.select(ocean_id);
    assert!(
        close(&w).top() >= 0.0,
        "the next dataset's details start at the top: {:?}",
        close(&w)
    );
}

/// Tab past the foot of a scrolled panel brings the widget it reaches into view: the
/// details' form runs far below the fold, and a keyboard's user cannot scroll to it.
#[test]
fn the_details_scroll_to_the_field_the_keyboard_reaches() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let height = 420.0;
    w.harness.set_size(egui::vec2(WINDOW[0], height));
    w.select(soil);
    for _ in 0..3 {
        w.harness.step();
    }
    let below = w.harness.get_by_label("Version").rect();
    assert!(below.top() > height, "below the fold first: {below:?}");
    // The field before it has the keyboard; Tab moves on to it.
    w.harness.get_by_label("Version").focus();
    for _ in 0..4 {
        w.harness.step();
    }
    let shown = w.harness.get_by_label("Version").rect();
    assert!(
        shown.top() >= 0.0 && shown.bottom() <= height,
        "in view now: {shown:?}"
    );
}

#[test]
fn sorting_by_name_puts_run2_before_run10() {
    let mut w = Window::open(FaultConfig::default());
    for name in ["run10", "Run2", "run1"] {
        w.add_folder(&w.lab.folder(name, &[("data.csv", name.as_bytes())]));
    }
    w.harness.get_by_label("Name").click();
    w.harness.step();
    w.harness.step();
    let names: Vec<String> = w
        .app()
        .table
        .order
        .iter()
        .map(|id| w.app().model.row(*id).unwrap().name.clone())
        .collect();
    assert_eq!(names, ["run1", "Run2", "run10"]);
}

/// Open Settings and set the defaults a bare folder needs to be depositable.
fn set_defaults(w: &mut Window) {
    w.open_settings();
    for (field, text) in [
        ("Your name", "Curie, Marie"),
        ("Publisher", "Soil lab"),
        ("Title", "Soil survey {folder}"),
    ] {
        w.type_into(field, text);
    }
    w.harness
        .get_by_label("The year the folder is added")
        .click();
    w.harness.step();
}

#[test]
fn defaults_set_in_settings_fill_in_the_incomplete_datasets_already_in_the_list() {
    let mut w = Window::open(FaultConfig::default());
    for name in ["plot-1", "plot-2"] {
        w.add_folder(&w.lab.folder(name, &[("cores.csv", name.as_bytes())]));
    }
    assert!(w.app().model.rows().iter().all(|r| !r.problems.is_empty()));
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    set_defaults(&mut w);
    // A complete dataset is selected, its details open: filling in the others leaves them be.
    let selected = w.open_details("soil-cores", |_| true);
    w.harness
        .get_by_label("Save, and fill in incomplete datasets (2)")
        .click();
    w.harness.step();
    w.wait("both filled in and re-keyed", |app| {
        app.model
            .rows()
            .iter()
            .all(|r| r.problems.is_empty() && r.key.is_some())
    });
    w.wait("the notice", |app| {
        app.notices
            .current()
            .any(|n| n.text.contains("Filled in 2 datasets from the defaults."))
    });
    assert_eq!(
        w.app().model.details.as_ref().map(|d| d.dataset),
        Some(selected),
        "the details panel still shows the selected dataset's"
    );
    for name in ["plot-1", "plot-2"] {
        let row = w.app().model.row(w.row_id(name)).unwrap();
        assert_eq!(row.metadata.title, format!("Soil survey {name}"));
        assert_eq!(row.metadata.publisher, "Soil lab");
    }
}

/// A default title with a guess at the placeholder (`{name}`) is not saved: every folder
/// added after would be deposited under a title with the braces in it.
#[test]
fn a_default_title_with_an_unknown_placeholder_is_refused_with_the_fix() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.type_into("Title", "Soil survey {name}");
    w.harness.step();
    w.harness.get_by_label_contains(
        "Title: {name} is not filled in by Lodge, and the title would reach the repository",
    );
    w.harness
        .get_by_label_contains("for each folder's name: \"Soil survey {folder}\"");
    w.harness.get_by_label("Save settings").click();
    w.harness.step();
    w.harness.step();
    assert!(
        w.app().settings.is_open(),
        "the window stays open with what was typed"
    );
    assert!(
        !std::fs::read_to_string(w.lab.path("app/settings.json"))
            .is_ok_and(|saved| saved.contains("{name}")),
        "nothing is saved until the title is fixed"
    );
}

/// Your ORCID iD and your affiliation's ROR in Settings: a mistyped one is named and not
/// saved; fixed, a folder added after gets them on its default creator, keyed as their
/// bare ORCID and ROR address.
#[test]
fn a_mistyped_default_orcid_or_ror_is_refused_and_the_fixed_ones_go_to_new_folders() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    for (field, text) in [
        ("Your name", "Curie, Marie"),
        ("Your ORCID iD", "0000-0002-1825-0098"),
        ("Affiliation", "Sorbonne University"),
        ("Affiliation's ROR", "02en5vm52"),
    ] {
        w.type_into(field, text);
    }
    w.harness.step();
    w.harness
        .get_by_label_contains("Your ORCID iD: '0000-0002-1825-0098' is not a valid ORCID iD");
    w.harness.get_by_label("Save settings").click();
    w.harness.step();
    w.harness.step();
    assert!(w.app().settings.is_open(), "not saved with the mistake");

    w.replace_text("Your ORCID iD", "https://orcid.org/0000-0002-1825-0097");
    w.replace_text("Affiliation's ROR", "02en5vm53");
    w.harness.step();
    w.harness
        .get_by_label_contains("Affiliation's ROR: '02en5vm53' is not a ROR id");
    w.replace_text("Affiliation's ROR", "ror.org/02en5vm52");
    w.harness.step();
    w.harness.get_by_label("Save settings").click();
    w.wait("the settings saved and closed", |app| {
        !app.settings.is_open()
    });

    let id = w.add_folder(&w.lab.folder("plot-1", &[("cores.csv", b"1")]));
    let creator = w.app().model.row(id).unwrap().metadata.creators[0].normalized();
    assert_eq!(creator.orcid.as_deref(), Some("0000-0002-1825-0097"));
    assert_eq!(
        creator.affiliations,
        [Affiliation {
            name: "Sorbonne University".into(),
            ror: Some("https://ror.org/02en5vm52".into())
        }]
    );
}

/// Your other affiliations in Settings: `+ Another affiliation` adds a row, a mistyped ROR
/// there is named and not saved; fixed, a folder added after gets both affiliations, in
/// order, on its default creator.
#[test]
fn another_default_affiliation_added_in_settings_goes_to_new_folders_after_the_first() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.type_into("Your name", "Curie, Marie");
    w.type_into("Affiliation", "Sorbonne University");
    w.harness.get_by_label("+ Another affiliation").click();
    w.harness.step();
    w.harness.step();
    w.type_into("Another affiliation", "ETH Zurich");
    // A second row, taken away again by its ✖.
    w.harness.get_by_label("+ Another affiliation").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.get_all_by_label("Another affiliation").count(), 2);
    (w.harness.get_all_by_label("✖").last())
        .expect("each row has its ✖")
        .click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.get_all_by_label("Another affiliation").count(), 1);
    w.type_into("ROR", "05a28rw59");
    w.harness.step();
    w.harness
        .get_by_label_contains("Affiliation's ROR: '05a28rw59' is not a ROR id");
    w.harness.get_by_label("Save settings").click();
    w.harness.step();
    w.harness.step();
    assert!(w.app().settings.is_open(), "not saved with the mistake");

    w.replace_text("ROR", "05A28RW58");
    w.harness.get_by_label("Save settings").click();
    w.wait("the settings saved and closed", |app| {
        !app.settings.is_open()
    });
    let id = w.add_folder(&w.lab.folder("plot-1", &[("cores.csv", b"1")]));
    let creator = w.app().model.row(id).unwrap().metadata.creators[0].normalized();
    assert_eq!(
        creator.affiliations,
        [
            Affiliation::named("Sorbonne University"),
            Affiliation {
                name: "ETH Zurich".into(),
                ror: Some("https://ror.org/05a28rw58".into())
            }
        ]
    );
}

/// A window opened on a lab whose settings file holds `text` (written by hand).
fn window_with_settings_file(text: &str) -> Window {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    std::fs::create_dir_all(lab.path("app")).unwrap();
    std::fs::write(lab.path("app/settings.json"), text).unwrap();
    Window::open_with(lab, config)
}

/// Such a title already saved (a hand-edited settings file) is said at start, and a folder
/// added then gets no title from it (its row says the title is missing) rather than the
/// braces.
#[test]
fn a_saved_default_title_with_an_unknown_placeholder_is_said_at_start_and_not_applied() {
    let saved = serde_json::json!({ "title": "Soil survey {name}", "publisher": "Soil lab" });
    let mut w = window_with_settings_file(&saved.to_string());
    w.wait("the notice", |app| {
        !gui::notices_with(app, "The default title saved in Settings is not given").is_empty()
    });
    let said = gui::notices_with(w.app(), "The default title saved in Settings is not given");
    assert!(
        said[0]
            .1
            .contains("\"Soil survey {folder}\". Correct it in Settings."),
        "{said:?}"
    );
    let id = w.add_folder(&w.lab.folder("plot-1", &[("cores.csv", b"1")]));
    let row = w.app().model.row(id).unwrap().clone();
    assert_eq!(row.metadata.title, "");
    assert_eq!(row.metadata.publisher, "Soil lab");
}

/// The settings file edited by hand while the window is open: the window takes its
/// defaults (as `lodge add --defaults` does), so its next save does not put the old ones
/// back; a damaged one is kept beside the file a save writes.
#[test]
fn a_settings_file_edited_by_hand_while_the_window_is_open_is_read_again_and_a_damaged_one_is_kept()
{
    let mut w = Window::open(FaultConfig::default());
    let path = w.lab.path("app/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let edited = serde_json::json!({ "name": "Curie, Marie", "publisher": "Hand lab" });
    std::fs::write(&path, edited.to_string()).unwrap();
    w.wait("the edited settings read again", |app| {
        app.model.settings.publisher == "Hand lab"
    });
    w.wait("the notice", |app| {
        !gui::notices_with(app, "was changed outside this window").is_empty()
    });
    let id = w.add_folder(&w.lab.folder("plot-1", &[("cores.csv", b"1")]));
    assert_eq!(
        w.app().model.row(id).unwrap().metadata.publisher,
        "Hand lab"
    );
    w.open_settings();
    w.replace_text("License", "CC-BY-4.0");
    w.harness.get_by_label("Save settings").click();
    w.wait("the settings saved and closed", |app| {
        !app.settings.is_open()
    });
    w.wait("saved", |_| {
        std::fs::read_to_string(&path).is_ok_and(|t| t.contains("CC-BY-4.0"))
    });
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        saved["publisher"], "Hand lab",
        "the hand edit stays: {saved}"
    );

    // Damaged by hand: said, and the next save keeps it beside the new file.
    std::fs::write(&path, r#"{"name": "Curie, Marie", "publsher": "Lab"}"#).unwrap();
    w.wait("the damaged file said", |app| {
        !gui::notices_with(app, "unknown field `publsher`").is_empty()
    });
    w.open_settings();
    w.replace_text("License", "CC0-1.0");
    w.harness.get_by_label("Save settings").click();
    w.wait("the damaged file kept", |app| {
        !gui::notices_with(app, "settings.damaged.json").is_empty()
    });
    let kept = std::fs::read_to_string(w.lab.path("app/settings.damaged.json")).unwrap();
    assert!(kept.contains("publsher"), "{kept}");
    assert!(std::fs::read_to_string(&path).unwrap().contains("CC0-1.0"));
}

/// A wrong ORCID iD already saved (a hand-edited settings file) is said at start: the
/// creator new folders get leaves it out.
#[test]
fn a_saved_wrong_orcid_is_said_at_start_and_left_out_of_new_folders() {
    let saved = serde_json::json!({ "name": "Curie, Marie", "orcid": "0000-0002-1825-0098" });
    let mut w = window_with_settings_file(&saved.to_string());
    w.wait("the notice", |app| {
        !gui::notices_with(app, "An id saved in Settings is left out of the creator").is_empty()
    });
    let id = w.add_folder(&w.lab.folder("plot-1", &[("cores.csv", b"1")]));
    let creator = w.app().model.row(id).unwrap().metadata.creators[0].clone();
    assert_eq!(
        (creator.name.as_str(), creator.orcid),
        ("Curie, Marie", None)
    );
}

/// A settings file that cannot be read at start is said in a sentence of its own, naming
/// the file; the window starts with the defaults.
#[test]
fn a_damaged_settings_file_at_start_is_said_naming_it() {
    let mut w = window_with_settings_file("{\"name\": ");
    w.wait("the notice", |app| {
        !gui::notices_with(app, "is damaged").is_empty()
    });
    let said = gui::notices_with(w.app(), "is damaged");
    assert!(said[0].1.starts_with("The settings file "), "{said:?}");
}

/// A window started with `--db` or `LODGE_DB` says in Settings that it wins over the shared
/// database typed there; one started without says nothing of it.
#[test]
fn settings_say_a_database_given_at_the_start_wins_over_the_shared_one() {
    let note = "This window was started with --db or LODGE_DB";
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    assert!(w.harness.query_by_label_contains(note).is_none());

    let lab = support::Lab::new();
    let mut config = gui::config(&lab, FaultConfig::default());
    config.paths.db_from_command_line = true;
    let mut w = Window::open_with(lab, config);
    w.open_settings();
    w.harness.get_by_label_contains(note);
}

/// A shared database typed into Settings that cannot be reached is said at once, while the
/// person is there to correct it: the next start would stop on it.
#[test]
fn a_shared_database_saved_in_settings_that_cannot_be_reached_is_said_at_once() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.type_into("Shared database", "postgres://nobody@127.0.0.1:1/lodge");
    w.harness.get_by_label("Save settings").click();
    w.wait("the warning", |app| {
        !gui::notices_with(app, "The shared database cannot be used now").is_empty()
    });
    let said = gui::notices_with(w.app(), "The shared database cannot be used now");
    assert!(said[0].1.contains("127.0.0.1:1"), "{said:?}");
    assert!(
        said[0]
            .1
            .contains("empty Shared database to keep this computer's own file"),
        "{said:?}"
    );
}

/// A start stopped by the shared database named in Settings says where it is corrected,
/// and Settings there shows what is saved and saves: emptied, the next start uses this
/// computer's own file. Targets wait for a start (nothing could save them).
#[test]
fn a_start_stopped_by_the_shared_database_is_corrected_in_settings() {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    std::fs::create_dir_all(lab.path("app")).unwrap();
    let saved = serde_json::json!({
        "publisher": "Soil lab",
        "database": "postgres://nobody@127.0.0.1:1/lodge",
    });
    std::fs::write(lab.path("app/settings.json"), saved.to_string()).unwrap();
    let mut w = Window::open_not_started(lab, config);
    let said = w.app().model.start_error.clone().unwrap();
    assert!(
        said.contains("the shared database named in Settings: correct it there, or empty it"),
        "{said}"
    );

    // The History has nothing to show or export either, and says why.
    w.harness.get_by_label("History").click();
    w.harness.step();
    w.harness.step();
    assert!(w.harness.query_by_label("Export CSV").is_none());
    assert!(w.harness.query_by_label("Loading the history…").is_none());
    w.harness.get_by_label_contains("Lodge could not start: ");

    w.open_settings();
    assert!(w.harness.query_by_label("Add target").is_none());
    w.harness
        .get_by_label("Targets are listed and added once Lodge has started.");
    w.harness.get_by_label("Shared database").focus();
    w.harness.step();
    w.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    w.harness.key_press(egui::Key::Backspace);
    w.harness.step();
    w.harness.get_by_label("Save settings").click();
    let file = w.lab.path("app/settings.json");
    w.wait("the settings saved", |_| {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("\"database\": \"\""))
    });
    let now: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        now["publisher"], "Soil lab",
        "what was saved is kept: {now}"
    );
    w.wait("the notice", |app| {
        !gui::notices_with(app, "Settings saved. Start Lodge again to use them.").is_empty()
    });
}

#[test]
fn defaults_set_in_settings_make_dropped_folders_ready_to_deposit_with_a_title_each() {
    let mut w = Window::open(FaultConfig::default());
    set_defaults(&mut w);
    w.harness.get_by_label("Save settings").click();
    w.harness.step();
    w.wait("the settings window closed", |app| !app.settings.is_open());
    // The file is written off the window's thread: wait for it rather than race it.
    let file = w.lab.path("app/settings.json");
    w.wait("the settings saved", |_| {
        std::fs::read_to_string(&file).is_ok_and(|saved| saved.contains("Soil survey {folder}"))
    });

    // Folders with no citation file of their own: every field a deposit needs is filled.
    for name in ["plot-7", "plot-8"] {
        w.add_folder(&w.lab.folder(name, &[("cores.csv", name.as_bytes())]));
    }
    let year = lodge::app::this_year();
    for name in ["plot-7", "plot-8"] {
        let row = w.app().model.row(w.row_id(name)).unwrap().clone();
        assert_eq!(row.metadata.title, format!("Soil survey {name}"));
        assert_eq!(row.metadata.publisher, "Soil lab");
        assert_eq!(row.metadata.publication_year, Some(year));
        assert!(row.problems.is_empty(), "{:?}", row.problems);
    }
    w.harness.step();
    w.harness.get_by_label("Deposit all ready (2)");
}

#[test]
fn dropping_a_folder_moved_from_elsewhere_names_the_row_it_was() {
    let mut w = Window::open(FaultConfig::default());
    let old = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let first = w.add_folder(&old);
    // Metadata edited in the window, beyond what the folder's CITATION.cff says.
    w.retitle(first, ", corrected");
    let moved = w.lab.path("archive/soil-cores");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&old, &moved).unwrap();
    let again = w.add_folder(&moved);
    // The moved folder comes with its metadata, and so its key.
    let (was, now) = (
        w.app().model.row(first).unwrap().clone(),
        w.app().model.row(again).unwrap().clone(),
    );
    assert_eq!(now.metadata.title, "Soil cores 2026, corrected");
    assert_eq!(now.key, was.key);
    // The notice comes with the row's other notes, which may follow the row by a frame.
    w.wait("the notice of where the metadata came from", |app| {
        gui::notices_with(app, "taken from the dataset added from").len() == 1
    });
    let said = format!(
        "soil-cores has the same files as the dataset added from {}, a folder that is gone: \
         if it moved here, remove that row (soil-cores) from the list",
        old.display()
    );
    w.wait("the moved notice", |app| {
        app.notices.current().any(|n| n.text.contains(&said))
    });
    assert_eq!(
        w.app().model.rows().len(),
        2,
        "both are rows until one is removed"
    );
}

#[test]
fn a_dataset_whose_folder_went_away_while_lodge_was_closed_is_named_when_the_window_opens() {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    std::fs::create_dir_all(lab.path("app")).unwrap();
    let kept = citable_folder(&lab, "kept", "Kept");
    let gone = citable_folder(&lab, "soil-cores", "Soil cores 2026");
    {
        let store = lodge::store::Store::open(&config.paths.db).unwrap();
        for folder in [&kept, &gone] {
            support::add(&store, folder, &support::metadata("Cores"));
        }
    }
    std::fs::remove_dir_all(&gone).unwrap();
    let mut w = Window::open_with(lab, config);
    let said = format!(
        "The folder of 1 dataset is gone (moved or deleted): soil-cores ({}). Drop it where \
         it is now onto the window to add it there, or remove its row",
        gone.display()
    );
    w.wait("the missing-folder notice", |app| {
        app.notices.current().any(|n| n.text.contains(&said))
    });
    assert!(
        !w.app().notices.current().any(|n| n.text.contains("kept (")),
        "a folder still there is not named"
    );

    // Its row says so, offers no Deposit, and is left out of Deposit all ready.
    assert_eq!(
        w.status("soil-cores"),
        Some(DedupStatus::FolderMissing {
            path: gone.display().to_string()
        })
    );
    assert_eq!(w.status("kept").map(|s| s.kind()), Some(StatusKind::New));
    w.harness.get_by_label_contains("Folder missing");
    assert_eq!(
        w.harness.query_all_by_label("Deposit").count(),
        1,
        "only the row whose folder is there"
    );
    w.harness.get_by_label("Deposit all ready (1)");
    assert_eq!(
        w.harness.query_all_by_label("📂").count(),
        1,
        "no Show folder for a folder that is gone"
    );

    // Once the folder is back (made again here, with the same files) and the row rescanned,
    // it is New again.
    citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.row_id("soil-cores");
    let entry = w.app().model.row(id).cloned().unwrap();
    w.harness.state().send(Command::SetMetadata {
        id,
        metadata: Box::new(entry.metadata),
        then_deposit: None,
    });
    w.wait("the rescanned row", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::New)
    });
    // Its folder found again, the warning that it is gone is taken down.
    w.wait("the missing-folder notice taken down", |app| {
        !app.notices.current().any(|n| n.text.contains(&said))
    });
}

/// A warning that a dataset's folder is gone goes with the dataset's row: removed from the
/// list, the dataset leaves nothing to warn of.
#[test]
fn the_warning_of_a_gone_folder_goes_when_its_dataset_is_removed() {
    let lab = support::Lab::new();
    let config = gui::config(&lab, FaultConfig::default());
    let gone = citable_folder(&lab, "soil-cores", "Soil cores 2026");
    {
        let store = lodge::store::Store::open(&config.paths.db).unwrap();
        support::add(&store, &gone, &support::metadata("Cores"));
    }
    std::fs::remove_dir_all(&gone).unwrap();
    let mut w = Window::open_with(lab, config);
    let said = "The folder of 1 dataset is gone (moved or deleted): soil-cores";
    w.wait("the missing-folder notice", |app| {
        app.notices.current().any(|n| n.text.contains(said))
    });
    let id = w.row_id("soil-cores");
    // Delete, then Enter at once, before the question has read the dataset's deposits:
    // the Enter is not the focused button's (it would have switched to the History).
    w.select(id);
    w.harness.get_by_label("History").focus();
    w.harness.step();
    // Each a frame of its own, the second before the service has answered.
    let key = |key, pressed| egui::Event::Key {
        key,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    };
    w.harness
        .input_mut()
        .events
        .extend([key(egui::Key::Delete, true), key(egui::Key::Delete, false)]);
    w.harness.step();
    w.harness
        .input_mut()
        .events
        .extend([key(egui::Key::Enter, true), key(egui::Key::Enter, false)]);
    w.harness.step();
    assert_eq!(
        w.app().view,
        lodge::ui::View::Datasets,
        "Enter went to History"
    );
    // Never deposited: asked all the same (Delete is one key from another), with the
    // keyboard on Cancel, so the Enter that followed by habit keeps it.
    w.wait_for_label("Remove soil-cores?");
    w.harness.get_by_label_contains(
        "It was never deposited. Only the row and its scan are removed: adding the folder \
         again brings its metadata back",
    );
    w.harness.step();
    assert!(
        w.harness.get_by_label("Cancel").is_focused(),
        "Cancel first"
    );
    w.harness.key_press(egui::Key::Enter);
    w.harness.step();
    w.harness.step();
    assert!(w.app().model.row(id).is_some(), "Enter cancelled");
    assert!(
        w.harness.query_by_label("Remove").is_none(),
        "the dialog closed"
    );
    w.ask_to_remove(id);
    w.harness.get_by_label("Remove").click();
    w.wait("the row and its warning gone", |app| {
        app.model.row(id).is_none() && !app.notices.current().any(|n| n.text.contains(said))
    });
}

#[test]
fn a_deposited_folder_changed_while_lodge_was_closed_says_so_and_its_rescan_deposits_it_anew() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let (first, _) = w.deposit_row(id);
    let kept = citable_folder(&w.lab, "kept", "Kept");
    let kept_id = w.add_folder(&kept);
    w.deposit_row(kept_id);

    // A file is added and another modified; the window is opened again the next day.
    std::fs::write(folder.join("data/cores.csv"), "core,depth\n1,0.9\n").unwrap();
    std::fs::write(folder.join("data/notes.txt"), "taken later").unwrap();
    let mut w = w.reopen();
    w.wait("the changed-folder notice", |app| {
        app.notices.current().any(|n| {
            n.text.contains(
                "The folder of 1 dataset changed since the last scan: soil-cores (1 file \
                 added, 1 file modified). A deposit sends a folder as it was scanned: Rescan it",
            )
        })
    });
    assert!(
        !w.app().notices.current().any(|n| n.text.contains("kept (")),
        "a folder as scanned is not named"
    );
    assert_eq!(
        w.status("soil-cores"),
        Some(DedupStatus::ChangedSinceScan {
            cause: "1 file added, 1 file modified".into()
        }),
        "not Deposited: what was deposited is the folder as it was"
    );
    assert_eq!(
        w.status("kept").map(|s| s.kind()),
        Some(StatusKind::Deposited)
    );
    assert_eq!(w.harness.query_all_by_label("Rescan").count(), 1);
    assert_eq!(w.harness.query_all_by_label("Deposit").count(), 0);

    // Its Rescan keys the folder as it is now: a new version of the record, deposited.
    w.harness.get_by_label("Rescan").click();
    w.wait("a new version", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::NewVersion)
    });
    let (second, _) = w.deposit_row(id);
    assert_ne!(
        second, first,
        "the files as they are now make another record"
    );

    // With the window open, a file of the other folder is edited elsewhere; coming back to
    // the window looks again.
    std::fs::write(kept.join("README.txt"), "Kept, with a note added.").unwrap();
    w.harness.step();
    assert_eq!(
        w.status("kept").map(|s| s.kind()),
        Some(StatusKind::Deposited)
    );
    w.harness.event(egui::Event::WindowFocused(true));
    w.wait("kept changed", |app| {
        app.status_of(kept_id)
            == Some(DedupStatus::ChangedSinceScan {
                cause: "1 file modified".into(),
            })
    });
    assert_eq!(
        w.status("soil-cores").map(|s| s.kind()),
        Some(StatusKind::Deposited)
    );
}

#[test]
fn a_folder_deleted_while_the_window_was_in_the_background_is_named_missing_and_found_again_when_put_back()
 {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    assert_eq!(
        w.status("soil-cores").map(|s| s.kind()),
        Some(StatusKind::New)
    );

    std::fs::remove_dir_all(&folder).unwrap();
    w.harness.event(egui::Event::WindowFocused(true));
    w.wait("Folder missing", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::FolderMissing)
    });
    assert_eq!(
        w.harness.query_all_by_label("Deposit").count(),
        0,
        "no Deposit is offered for a folder that is gone"
    );

    // Put back (its files written anew, the same bytes): the next look, a minute later,
    // finds it there again. Only its files' times changed, and their bytes tell that they
    // did not: it is as scanned, with nothing to rescan.
    let again = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    assert_eq!(again, folder);
    w.harness.state_mut().clock = lodge::ui::Clock::Fixed(lodge::store::now_ms() + 60_000);
    w.harness.event(egui::Event::WindowFocused(true));
    w.wait("the folder back", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::New)
    });
    assert_eq!(w.harness.query_all_by_label("Rescan").count(), 0);

    // Written again with other bytes: now it offers to rescan.
    std::fs::write(folder.join("README.txt"), "Soil cores, second look\n").unwrap();
    w.harness.state_mut().clock = lodge::ui::Clock::Fixed(lodge::store::now_ms() + 120_000);
    w.harness.event(egui::Event::WindowFocused(true));
    w.wait("the change seen", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::ChangedSinceScan)
    });
    assert_eq!(w.harness.query_all_by_label("Rescan").count(), 1);
}

/// A folder moved away, then put back where it was, while the window has the focus: the
/// row says Folder missing only until the next look a few seconds on (no focus change
/// needed); given again (pasted or dropped) it says so at once.
#[test]
fn a_gone_folder_put_back_is_found_again_without_the_window_losing_focus() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    let away = w.lab.path("soil-cores-away");
    let missing = |app: &lodge::ui::LodgeApp| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::FolderMissing)
    };

    std::fs::rename(&folder, &away).unwrap();
    w.app().send(Command::CheckFolders);
    w.wait("Folder missing", missing);
    std::fs::rename(&away, &folder).unwrap();
    w.wait("the folder found again", |app| !missing(app));
    assert_eq!(
        w.app().status_of(id).map(|s| s.kind()),
        Some(StatusKind::New)
    );

    std::fs::rename(&folder, &away).unwrap();
    w.app().send(Command::CheckFolders);
    w.wait("Folder missing", missing);
    std::fs::rename(&away, &folder).unwrap();
    w.drop_paths(&[&folder]);
    w.wait("found again once given again", |app| {
        !missing(app) && gui::notices_with(app, "already in the list").len() == 1
    });
}

/// A folder given a file after its scan, deposited from the window: the deposit is of the
/// folder as scanned, and a notice says the new file is left out and how to include it
/// (as `lodge deposit` notes); the row then says Changed since scan, with Rescan.
#[test]
fn depositing_a_folder_with_a_file_added_since_its_scan_says_the_file_is_left_out() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    std::fs::write(folder.join("added-later.csv"), "x\n1\n").unwrap();
    w.harness.get_by_label("Deposit").click();
    w.wait("deposited as scanned, and said", |app| {
        let landed =
            (app.model.row(id)).is_some_and(|r| r.jobs.values().any(|j| j.state.is_landed()));
        landed && !gui::notices_with(app, "Files added since the last scan").is_empty()
    });
    let said = gui::notices_with(w.app(), "Files added since the last scan");
    assert_eq!(
        said[0].1,
        "Files added since the last scan: soil-cores (1 file). This deposit is of the folder \
         as scanned, without them. To include them, Rescan it (a new key), then deposit \
         again; its deposit of the content as scanned stays."
    );
    w.wait("Changed since scan", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::ChangedSinceScan)
    });
    w.harness.step();
    assert_eq!(w.harness.query_all_by_label("Rescan").count(), 1);
}

/// *Rescan changed* is there, greyed out, while no folder changed: appearing when one
/// changes, it wrapped the bar of a narrow window and moved every row down from under the
/// pointer.
#[test]
fn rescan_changed_in_the_top_bar_rescans_every_changed_folder_at_once() {
    let mut w = Window::open(FaultConfig::default());
    let mut ids = Vec::new();
    let mut folders = Vec::new();
    for name in ["run1", "run2"] {
        let folder = citable_folder(&w.lab, name, name);
        let id = w.add_folder(&folder);
        w.deposit_row(id);
        ids.push(id);
        folders.push(folder);
    }
    w.harness.step();
    assert!(
        (w.harness.get_by_label("Rescan changed (0)"))
            .accesskit_node()
            .is_disabled(),
        "nothing to rescan"
    );
    // As narrow as the bar's one line holds the greyed-out button and no more.
    let one_line = |w: &mut Window, width: f32| {
        w.harness.set_size(egui::vec2(width, 700.0));
        w.harness.step();
        let verify = w.harness.get_by_label("Verify deposited (2)").rect();
        verify.top() < w.harness.get_by_label("Search:").rect().bottom()
    };
    let mut width = 1800.0;
    assert!(one_line(&mut w, width));
    while one_line(&mut w, width - 8.0) {
        width -= 8.0;
    }
    assert!(one_line(&mut w, width));
    let before = w.harness.get_by_label("run1").rect();
    for folder in &folders {
        std::fs::write(folder.join("data/cores.csv"), "core,depth\n9,9.9\n").unwrap();
    }
    // Coming back to the window looks at the folders again.
    w.harness.event(egui::Event::WindowFocused(true));
    w.wait("both changed", |app| {
        ids.iter()
            .all(|&id| app.status_of(id).map(|s| s.kind()) == Some(StatusKind::ChangedSinceScan))
    });
    w.harness.step();
    assert_eq!(
        w.harness.get_by_label("run1").rect(),
        before,
        "the rows stay put"
    );
    w.harness.get_by_label("Rescan changed (2)").click();
    w.wait("both rescanned", |app| {
        ids.iter()
            .all(|&id| app.status_of(id).map(|s| s.kind()) == Some(StatusKind::NewVersion))
    });
    w.harness.step();
    assert!(
        (w.harness.get_by_label("Rescan changed (0)"))
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn dropping_the_folder_that_holds_a_dataset_says_so_and_adds_it() {
    let mut w = Window::open(FaultConfig::default());
    let survey = w
        .lab
        .folder("survey", &[("a.csv", b"1,2"), ("raw/b.csv", b"3,4")]);
    let raw_id = w.add_folder(&survey.join("raw"));
    assert!(
        !w.app()
            .notices
            .current()
            .any(|n| n.text.contains("in common")),
        "the first folder overlaps nothing"
    );
    w.add_folder(&survey);
    w.wait("the overlap notice", |app| {
        app.notices.current().any(|n| n.text.contains("in common"))
    });
    let said = format!(
        "survey holds dataset {raw_id} (raw): the files in common go into the deposit of each"
    );
    assert!(
        w.harness
            .query_all_by_label_contains(&said)
            .next()
            .is_some(),
        "the notice is on screen"
    );
    assert_eq!(w.app().model.rows().len(), 2, "both folders are rows");
}

#[test]
fn dropping_a_plain_file_says_not_a_folder_and_the_same_folder_twice_is_added_once() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let file = folder.join("README.txt");
    w.drop_paths(&[&file]);
    w.wait("the not-a-folder notice", |app| {
        app.notices
            .current()
            .any(|n| n.text.contains("is a file, not a folder"))
    });
    assert!(
        w.harness
            .query_all_by_label_contains(
                "README.txt is a file, not a folder: add the folder that holds the dataset's \
                 files (drop it onto the window, or paste its path)",
            )
            .next()
            .is_some(),
        "the notice is on screen"
    );
    assert!(w.app().model.rows().is_empty(), "a file adds no row");

    w.drop_paths(&[&folder]);
    w.wait("the row", |app| {
        app.model.rows().iter().any(|r| r.key.is_some())
    });
    w.drop_paths(&[&folder]);
    w.wait("the already-added notice", |app| {
        app.notices
            .current()
            .any(|n| n.text.contains("not added twice"))
    });
    // Both at once, too. Each time is said (the log has them all), and shown once: the
    // same words again do not pile up on screen.
    w.drop_paths(&[&folder, &folder]);
    w.wait("two more said", |app| {
        gui::notices_with(app, "not added twice").len() >= 3
    });
    assert_eq!(w.app().model.rows().len(), 1, "the folder is one row");
    // (The two at once may differ: one may find the other still being added.)
    let shown: Vec<&str> = (w.app().notices.current())
        .filter(|n| n.text.contains("not added twice"))
        .map(|n| n.text.as_str())
        .collect();
    let once: std::collections::HashSet<&&str> = shown.iter().collect();
    assert_eq!(
        shown.len(),
        once.len(),
        "the same notice shown once: {shown:?}"
    );
}

/// A dataset added and deposited from the command line while the window is open on the same
/// database file shows in the window, with its deposit and its log lines, and so does a
/// check made there: without a restart or a click.
#[test]
fn work_done_from_the_command_line_shows_in_the_open_window() {
    let mut w = Window::open(FaultConfig::default());
    let sandbox = w
        .runtime
        .block_on(w.lab.sandbox("elsewhere", FaultConfig::default()));
    let folder = w.lab.numbered_folder(1);
    let db = w.lab.path("app/lodge.db");
    let terminal = |args: &[&str]| gui::lodge_elsewhere(&db, &[], args);
    terminal(&support::add_titled(&folder, "From the terminal"));
    terminal(&["deposit", "--target", &sandbox.target_url(), "--all"]);
    w.wait("the terminal's dataset, its deposit and its log", |app| {
        let landed = app.model.rows().iter().any(|r| {
            r.metadata.title == "From the terminal" && r.jobs.values().any(|j| j.state.is_landed())
        });
        let logged = app.model.log.iter().any(|l| l.kind == "created");
        landed && logged
    });
    terminal(&["verify", "--all"]);
    w.wait("the terminal's check in the log", |app| {
        app.model.log.iter().any(|l| l.kind == "verified")
    });
    // Removed there, it leaves the list here, and its lines keep its name, marked removed,
    // as they do when it is removed here.
    terminal(&["remove", "1"]);
    w.wait("the terminal's removal", |app| {
        app.model.rows().is_empty() && app.model.log.iter().any(|l| l.kind == "removed")
    });
    w.harness.step();
    assert!(
        w.harness
            .query_all_by_label_contains("ds001 (removed): ")
            .count()
            >= 3,
        "its lines name it"
    );
    assert!(
        w.harness.query_by_label_contains("#1: ").is_none(),
        "no line names it by number"
    );
}

/// The History has a *Queued by* column once more than one person or machine queued
/// deposits into its database (another machine, standing in as `LODGE_HOST`, from a
/// terminal): one machine's history does not repeat its own name on every row. The search
/// finds a job by who queued it.
#[test]
fn the_history_names_who_queued_each_job_once_another_machine_did() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("deposited", |app| {
        matches!(app.status_of(soil), Some(DedupStatus::Deposited { .. }))
    });
    w.open_history();
    assert!(
        w.harness.query_by_label("Queued by").is_none(),
        "one machine"
    );

    let sandbox = w
        .runtime
        .block_on(w.lab.sandbox("elsewhere", FaultConfig::default()));
    let folder = w.lab.numbered_folder(1);
    let db = w.lab.path("app/lodge.db");
    let machine = [
        ("LODGE_HOST", std::path::Path::new("lab-b")),
        ("USER", std::path::Path::new("ada")),
    ];
    let terminal = |args: &[&str]| gui::lodge_elsewhere(&db, &machine, args);
    terminal(&support::add_titled(&folder, "From the terminal"));
    terminal(&["deposit", "--target", &sandbox.target_url(), "2"]);
    w.wait("the other machine's job in the history", |app| {
        app.model.history.as_ref().is_some_and(|h| h.len() == 2)
    });
    w.harness.step();
    w.harness.get_by_label("Queued by");
    w.harness.get_by_label("ada@lab-b");
    // The other machine's target, a URL this window never used, is in the target filter.
    let pickers = w
        .harness
        .get_all_by_role_and_label(egui::accesskit::Role::ComboBox, "Target:")
        .collect::<Vec<_>>();
    let url = sandbox.target_url();
    let before = w.harness.query_all_by_label(&url).count();
    pickers.last().expect("the history's target filter").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.query_all_by_label(&url).count(), before + 1);
    w.harness.key_press(egui::Key::Escape);
    w.harness.step();
    let here = w.app().model.history.as_ref().unwrap()[1].queued_by.clone();
    let here = here.expect("the window's job names who queued it");
    assert_ne!(here, "ada@lab-b");
    w.harness.get_by_label(&here);

    w.type_into("Search:", "lab-b");
    w.harness.step();
    assert!(
        w.harness.query_by_label("soil-cores").is_none(),
        "{here}'s job is not lab-b's"
    );
    w.harness.get_by_label("ada@lab-b");

    // A job by its number, as the command line names it.
    let first = w.app().model.history.as_ref().unwrap()[1].job;
    w.replace_text("Search:", &format!("#{first}"));
    w.harness.step();
    w.harness.get_by_label("soil-cores");
    assert!(w.harness.query_by_label("ada@lab-b").is_none());
}

/// A dataset removed in a terminal while the window holds edits of it not saved (its
/// details open, or another's, the edits kept as a draft): a warning names it and says the
/// edits went with it. One with no edits goes with no word, and so does one the window
/// removes itself (it asked first).
#[test]
fn a_dataset_removed_in_a_terminal_while_edited_here_says_its_edits_went_with_it() {
    let mut w = Window::open(FaultConfig::default());
    let db = w.lab.path("app/lodge.db");
    let terminal = |args: &[&str]| gui::lodge_elsewhere(&db, &[], args);
    for n in 1..=4 {
        terminal(&support::add_titled(&w.lab.numbered_folder(n), "Survey"));
    }
    w.wait("the terminal's datasets", |app| app.model.rows().len() == 4);
    let [shown, drafted, _, here] = ["ds001", "ds002", "ds003", "ds004"].map(|n| w.row_id(n));
    for id in [drafted, shown] {
        w.edit_title(id, " edited");
    }
    w.select(here);
    w.edit_title(here, " edited");
    w.select(shown);
    let warned = |w: &Window, name: &str| {
        !gui::notices_with(
            w.app(),
            &format!("{name} was removed from the list elsewhere"),
        )
        .is_empty()
    };

    terminal(&["remove", "ds001", "ds002", "ds003"]);
    w.wait("the rows gone", |app| app.model.rows().len() == 1);
    w.harness.step();
    for name in ["ds001", "ds002"] {
        assert!(warned(&w, name), "{name}");
    }
    let said = gui::notices_with(w.app(), "ds001 was removed");
    assert!(
        said[0]
            .1
            .contains("held edits not saved: they went with it"),
        "{said:?}"
    );
    assert!(!warned(&w, "ds003"), "no edits, no word");

    w.ask_to_remove(here);
    w.harness.get_by_label("Remove").click();
    w.wait("removed here", |app| app.model.rows().is_empty());
    w.harness.step();
    assert!(!warned(&w, "ds004"), "asked before, no word after");
}

/// Metadata saved in a terminal while the form has unsaved edits joins the form: Save keeps
/// both, the terminal's description and the title typed here. A field changed in both
/// places keeps what was typed here, and a notice says so.
#[test]
fn saving_the_form_keeps_metadata_saved_in_a_terminal_while_it_was_being_edited() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.numbered_folder(1);
    let db = w.lab.path("app/lodge.db");
    let terminal = |args: &[&str]| gui::lodge_elsewhere(&db, &[], args);
    terminal(&support::add_titled(&folder, "Survey"));
    w.wait("the terminal's dataset", |app| app.model.rows().len() == 1);
    let id = w.row_id("ds001");
    w.select(id);
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(" v2");
    w.harness.step();

    let path = folder.to_str().unwrap();
    terminal(&["add", path, "--description", "added from the terminal"]);
    w.wait("the terminal's description in the row", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.metadata.description.as_deref() == Some("added from the terminal"))
    });
    w.harness.step();
    w.harness.step();
    assert!(
        w.app()
            .notices
            .current()
            .next()
            .is_none_or(|n| !n.text.contains("saved elsewhere")),
        "no field was changed in both places"
    );
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait("both saved", |app| {
        app.model.row(id).is_some_and(|r| {
            r.metadata.title == "Survey v2"
                && r.metadata.description.as_deref() == Some("added from the terminal")
        })
    });

    // Both places change the title: what was typed here stays, and the notice says so.
    w.harness.step();
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(" (window)");
    w.harness.step();
    terminal(&["add", path, "--title", "Survey (terminal)"]);
    w.wait("the notice", |app| {
        app.notices
            .current()
            .any(|n| n.text.contains("saved elsewhere") && n.text.contains("Title"))
    });
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait("the window's title saved", |app| {
        app.model.row(id).is_some_and(|r| {
            r.metadata.title == "Survey v2 (window)"
                && r.metadata.description.as_deref() == Some("added from the terminal")
        })
    });
}

/// A folder added in a terminal gets its row in the open window with no deposit; added
/// again there with a new title (a rescan) the row takes the new title and key; removed
/// there, the row goes. Each shows in the log too, without a restart or a click.
#[test]
fn a_dataset_added_rescanned_or_removed_in_a_terminal_shows_in_the_open_window() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.numbered_folder(1);
    let db = w.lab.path("app/lodge.db");
    let terminal = |args: &[&str]| gui::lodge_elsewhere(&db, &[], args);

    terminal(&support::add_titled(&folder, "Added in a terminal"));
    w.wait("the terminal's dataset", |app| {
        app.model
            .rows()
            .iter()
            .any(|r| r.metadata.title == "Added in a terminal")
    });
    let id = w.row_id("ds001");
    let first_key = w.app().model.row(id).unwrap().key;

    terminal(&support::add_titled(&folder, "Retitled in a terminal"));
    w.wait("the row's new title and key", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.metadata.title == "Retitled in a terminal" && r.key != first_key)
    });

    terminal(&["remove", &id.to_string()]);
    w.wait("the row gone", |app| app.model.row(id).is_none());
    // A new title alone is an edit of the metadata, not a rescan of changed files.
    for kind in ["added", "edited", "removed"] {
        let lines: Vec<_> = w
            .app()
            .model
            .log
            .iter()
            .filter(|l| l.kind == kind)
            .collect();
        assert_eq!(lines.len(), 1, "one {kind} line: {lines:?}");
        assert_eq!(lines[0].dataset, Some(id), "{lines:?}");
    }
    assert!(w.log_of("removed")[0].starts_with("removed ds001 ("));
}

/// Team mode: a window on a shared PostgreSQL store (named in Settings) shows a dataset
/// another machine added and deposited, and names that machine in the log, without a
/// restart or a click.
#[test]
fn a_window_on_a_shared_store_shows_another_machines_work() {
    let lab = support::Lab::new();
    let url = support::postgres::shared().new_database();
    let caches = support::postgres::local_hash_cache();
    let config = gui::config(&lab, FaultConfig::default());
    std::fs::create_dir_all(lab.path("app")).unwrap();
    std::fs::write(
        lab.path("app/settings.json"),
        serde_json::json!({ "database": url }).to_string(),
    )
    .unwrap();
    let mut w = Window::open_with(lab, config);
    assert!(
        w.app()
            .model
            .db
            .as_ref()
            .unwrap()
            .to_string_lossy()
            .starts_with("postgres://"),
        "the window did not open the shared database"
    );

    let sandbox = w
        .runtime
        .block_on(w.lab.sandbox("elsewhere", FaultConfig::default()));
    let folder = w.lab.numbered_folder(1);
    let (host, cache) = (
        std::path::Path::new("other-machine"),
        caches.join("other.db"),
    );
    let elsewhere = [("LODGE_HOST", host), ("LODGE_HASH_CACHE", cache.as_path())];
    let other = |args: &[&str]| gui::lodge_elsewhere(std::path::Path::new(&url), &elsewhere, args);
    other(&support::add_titled(&folder, "From another machine"));
    other(&["deposit", "--target", &sandbox.target_url(), "--all"]);

    w.wait("the other machine's dataset, deposit and log", |app| {
        let landed = app.model.rows().iter().any(|r| {
            r.metadata.title == "From another machine"
                && r.jobs.values().any(|j| j.state.is_landed())
        });
        let named = app
            .model
            .log
            .iter()
            .any(|l| l.kind == "created" && l.text.contains("@other-machine"));
        landed && named
    });

    // Its folder is the other machine's: a rescan here says so, and does not call it
    // missing (as if moved or deleted).
    std::fs::remove_dir_all(&folder).unwrap();
    let id = w.row_id("ds001");
    let metadata = w.app().model.row(id).unwrap().metadata.clone();
    w.harness.state().send(Command::SetMetadata {
        id,
        metadata: Box::new(metadata),
        then_deposit: None,
    });
    w.wait("the notice", |app| {
        app.notices
            .current()
            .any(|n| n.text.contains("it was added on another machine"))
    });
    assert_ne!(
        w.status("ds001").map(|s| s.kind()),
        Some(StatusKind::FolderMissing)
    );
}

/// Ask the window to close, as the window manager's close button does, and draw a frame;
/// returns the viewport commands the window answered with.
fn request_close(w: &mut Window) -> Vec<egui::ViewportCommand> {
    w.harness
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    w.harness.step();
    w.harness
        .output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .map(|v| v.commands.clone())
        .unwrap_or_default()
}

/// Closing the window while it sends a deposit is held back to ask: the upload would be
/// cut short (nothing lost: it goes back on the queue with its key). "Keep Lodge open"
/// keeps it; "Close anyway" closes. With nothing in hand the window closes at once.
#[test]
fn closing_while_a_deposit_is_sent_asks_first_and_close_anyway_closes() {
    let mut w = Window::open(FaultConfig::default());
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "nothing in hand: the window closes"
    );
    assert!(w.harness.query_by_label("Close Lodge?").is_none());

    let mut w = Window::open(FaultConfig {
        latency_ms: 60_000,
        ..FaultConfig::default()
    });
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit to be sent", |app| {
        app.model.work_in_hand().sending == 1
    });
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness.get_by_label("Close Lodge?");
    w.harness
        .get_by_label_contains("1 deposit is being sent. Closing stops it");

    // The keyboard is on Keep Lodge open: an Enter keeps it.
    w.harness.step();
    assert!(w.harness.get_by_label("Keep Lodge open").is_focused());
    w.harness.key_press(egui::Key::Enter);
    w.harness.step();
    w.harness.step();
    assert!(w.harness.query_by_label("Close Lodge?").is_none());
    assert!(matches!(
        w.app().status_of(id),
        Some(DedupStatus::Uploading { .. })
    ));

    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness.get_by_label("Close anyway").click();
    w.harness.step();
    let commands = w
        .harness
        .output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .map(|v| v.commands.clone())
        .unwrap_or_default();
    assert!(
        commands.contains(&egui::ViewportCommand::Close),
        "{commands:?}"
    );
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "the close it asked for goes through"
    );
}

/// The close dialog's paragraphs follow the work in hand: a deposit that lands while it is
/// read takes its paragraph away. Its buttons stay where they were, so a click aimed at
/// "Close without saving" does not land on the backdrop as the dialog shrinks.
#[test]
fn the_close_dialogs_buttons_stay_put_when_a_paragraph_goes() {
    let mut w = Window::open(FaultConfig {
        latency_ms: 1_500,
        ..FaultConfig::default()
    });
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let river = w.add_folder(&citable_folder(&w.lab, "river", "River 2026"));
    let target = w.app().target_id().to_string();
    w.app().send(Command::Deposit {
        ids: vec![soil],
        target,
    });
    w.wait("the deposit to be sent", |app| {
        app.model.work_in_hand().sending == 1
    });
    w.edit_title(river, ", revised");
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness
        .get_by_label_contains("1 deposit is being sent. Closing stops it");
    let before = w.harness.get_by_label("Close without saving").rect();

    w.wait("the deposit to land", |app| {
        matches!(app.status_of(soil), Some(DedupStatus::Deposited { .. }))
    });
    w.harness.step();
    w.harness.step();
    assert!(
        w.harness.query_by_label_contains("being sent").is_none(),
        "the sending paragraph is gone"
    );
    let after = w.harness.get_by_label("Close without saving").rect();
    assert_eq!(before, after, "the button moved");
}

/// Closing the window while a deposit waits to be tried again (the server said to come back
/// later) asks first: closing leaves it unsent until Lodge runs again. Paused, the window
/// sends nothing anyway, so it closes at once.
#[test]
fn closing_while_a_deposit_waits_to_retry_asks_first_and_not_while_paused() {
    let mut w = told_to_come_back_in_a_minute();
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit to wait for its retry", |app| {
        app.model.work_in_hand().retrying == 1
    });
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness.get_by_label("Close Lodge?");
    w.harness.get_by_label_contains(
        "1 deposit waits on the queue to be tried again after a failed attempt. Closing \
         leaves it there unsent",
    );
    w.harness.get_by_label("Keep Lodge open").click();
    w.harness.step();
    w.harness.step();

    w.harness.get_by_label("⏸ Pause").click();
    w.wait("paused", |app| !app.model.engine_running);
    // Its row says it waits on the pause, not a countdown that would stop at 0 s.
    w.harness.step();
    assert!(
        w.harness
            .query_all_by_label("⟳ Retry · paused")
            .next()
            .is_some()
    );
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "paused: nothing is cut short"
    );
}

/// The first key typed into the details' form brings the *✏ Edits not saved* strip at
/// their top; the form below does not move under the caret for it (the strip's place
/// says *✔ Metadata as saved* until then), nor when Undo takes the edit back.
#[test]
fn the_form_stays_put_when_the_edits_strip_comes_and_goes() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.select(soil);
    w.harness.get_by_label("✔ Metadata as saved");
    let before = w.harness.get_by_label("Title").rect();
    w.edit_title(soil, ", revised");
    w.harness.get_by_label("✏ Edits not saved");
    assert_eq!(
        w.harness.get_by_label("Title").rect(),
        before,
        "the form moved"
    );
    w.harness.get_by_label("Undo").click();
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("✔ Metadata as saved");
    assert_eq!(
        w.harness.get_by_label("Title").rect(),
        before,
        "the form moved"
    );
}

/// Ctrl+S saves the details' edits, typing in a field too (the form's own Save is at its
/// foot, some twenty fields down); with nothing to save it does nothing.
#[test]
fn ctrl_s_saves_the_metadata_edits_while_typing() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let key = w.app().model.row(soil).unwrap().key;
    w.edit_title(soil, ", revised");
    assert!(w.harness.get_by_label("Title").is_focused(), "typing");
    w.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    w.wait("saved, re-keyed", |app| {
        app.model.row(soil).is_some_and(|r| {
            r.metadata.title == "Soil cores 2026, revised" && r.key.is_some() && r.key != key
        })
    });
    w.harness.step();
    w.harness.get_by_label("✔ Metadata as saved");

    // One that cannot be saved says why: the greyed Save's hover is no keyboard's.
    w.replace_text("Year", "20x5");
    w.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    w.harness.step();
    w.harness.step();
    let said = notices_with(
        w.app(),
        "soil-cores's metadata is not saved: '20x5' is not a year: write four digits in Year",
    );
    assert_eq!(said.len(), 1, "said once: {said:?}");
    assert_eq!(said[0].0, LogLevel::Warning);
}

/// Closing the window while a dataset's details hold metadata edits not saved asks first,
/// naming the dataset: those edits would be gone for good. A draft left behind by
/// selecting another row counts too. "Keep Lodge open" keeps the edits, the details say
/// near their top that they are not saved, and once saved from there the window closes
/// at once. "Close without saving" closes.
#[test]
fn closing_with_metadata_edits_not_saved_asks_first_naming_the_datasets() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let river = w.add_folder(&citable_folder(&w.lab, "river", "River 2026"));
    w.select(soil);
    assert!(w.harness.query_by_label("✏ Edits not saved").is_none());
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(", revised");
    // The mark is drawn above the form: it shows on the frame after the typing.
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("✏ Edits not saved");
    // Another row selected: soil-cores' edits wait as a draft, marked beside its name.
    w.select(river);
    w.harness.step();
    w.harness.get_by_label("✏");
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness.get_by_label("Close Lodge?");
    w.harness
        .get_by_label_contains("The metadata of soil-cores has edits not saved");
    // It names the button as the details show it.
    w.harness.get_by_label_contains(
        "select it and press Save beside ✏ Edits not saved at the top of its details",
    );
    w.harness.get_by_label("Keep Lodge open").click();
    w.harness.step();
    w.harness.step();
    assert!(w.harness.query_by_label("Close Lodge?").is_none());

    w.select(soil);
    w.harness.get_by_label("Save").click();
    w.wait("the edit saved", |app| {
        app.model
            .row(soil)
            .is_some_and(|r| r.metadata.title == "Soil cores 2026, revised")
    });
    w.harness.step();
    assert!(w.harness.query_by_label("✏ Edits not saved").is_none());
    assert!(w.harness.query_by_label("✏").is_none(), "saved: no mark");
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "everything saved: the window closes"
    );

    let mut w = w.reopen();
    w.select(river);
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(" (draft)");
    w.harness.step();
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness
        .get_by_label_contains("The metadata of river has edits not saved");
    w.harness.get_by_label("Close without saving").click();
    w.harness.step();
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "the close asked for goes through"
    );
    assert_eq!(
        w.app().model.row(river).unwrap().metadata.title,
        "River 2026"
    );
}

/// The close dialog's Save and close saves what the dialog names (a dataset's edits left
/// as a draft, Settings' changes) and closes once the store and the settings file hold
/// them: the next start shows them saved.
#[test]
fn save_and_close_saves_the_edits_and_settings_then_closes() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let river = w.add_folder(&citable_folder(&w.lab, "river", "River 2026"));
    w.edit_title(soil, ", revised");
    // Another row selected: soil-cores' edits wait as a draft.
    w.select(river);
    w.open_settings();
    w.type_into("Your name", "Curie, Marie");
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness
        .get_by_label_contains("The metadata of soil-cores has edits not saved");
    w.harness
        .get_by_label_contains("Settings has changes not saved");
    w.harness.get_by_label("Save and close").click();
    w.wait("the saves to land and the window to close", |app| {
        app.dialogs.close_allowed
    });
    assert_eq!(
        w.app().model.row(soil).unwrap().metadata.title,
        "Soil cores 2026, revised"
    );
    assert_eq!(w.app().model.settings.name, "Curie, Marie");

    let mut w = w.reopen();
    w.harness.step();
    assert_eq!(
        w.app().model.row(soil).unwrap().metadata.title,
        "Soil cores 2026, revised",
        "the store holds the edit"
    );
    assert_eq!(w.app().model.settings.name, "Curie, Marie");
    assert!(
        !request_close(&mut w).contains(&egui::ViewportCommand::CancelClose),
        "nothing left unsaved"
    );
}

/// Save and close waits, disabled and saying why, while an edit cannot be saved (a Year
/// that is no year). A save that fails (the folder went since the dialog opened) keeps the
/// window open: the dialog says not everything was saved, still names the dataset, and
/// Save and close then says why it cannot.
#[test]
fn save_and_close_keeps_the_window_open_when_a_save_cannot_be_made() {
    let mut w = Window::open(FaultConfig::default());
    let soil = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.select(soil);
    w.replace_text("Year", "abc");
    w.harness.step();
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    let save = w.harness.get_by_label("Save and close");
    assert!(save.accesskit_node().is_disabled(), "an unsaveable Year");
    // Said in the dialog, not only on the greyed button's hover (no keyboard's).
    w.harness.get_by_label_contains(
        "Save and close cannot save yet: soil-cores: 'abc' is not a year: write four digits \
         in Year",
    );

    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let soil = w.add_folder(&folder);
    w.edit_title(soil, ", revised");
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    std::fs::rename(&folder, w.lab.path("soil-cores-moved")).unwrap();
    w.harness.get_by_label("Save and close").click();
    w.wait_for_label_contains("Not everything could be saved");
    assert!(!w.app().dialogs.close_allowed, "the window stays open");
    w.harness
        .get_by_label_contains("The metadata of soil-cores has edits not saved");
    assert_eq!(
        w.app().model.row(soil).unwrap().metadata.title,
        "Soil cores 2026",
        "nothing saved"
    );
    let save = w.harness.get_by_label("Save and close");
    assert!(save.accesskit_node().is_disabled(), "the folder is gone");
    w.harness
        .get_by_label_contains("Save and close cannot save yet: The folder of soil-cores is gone");
}

/// A window whose Pause was pressed, then a dataset's Deposit: the dataset's id, its row
/// *Queued · paused*.
fn deposit_asked_while_paused() -> (Window, i64) {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("⏸ Pause").click();
    w.wait("sending paused", |app| !app.model.engine_running);
    w.harness.step();
    w.harness.get_by_label("Deposit").click();
    w.wait("the deposit queued", |app| {
        app.status_of(id) == Some(DedupStatus::Queued { paused: true })
    });
    (w, id)
}

/// A deposit asked for while sending is paused waits for Resume, not for its turn, and
/// its row says so: "Queued · paused", and on hover how to send it. Resume sends it.
#[test]
fn a_deposit_queued_while_paused_says_paused_until_resume_sends_it() {
    let (mut w, id) = deposit_asked_while_paused();
    w.harness.step();
    w.harness.get_by_label("⌛ Queued · paused");
    assert_eq!(
        lodge::ui::badge::hover(&DedupStatus::Queued { paused: true }),
        "On the queue, and sending is paused: press ▶ Resume to send it."
    );

    w.harness.get_by_label("▶ Resume").click();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
}

/// Each of a row's actions has its own place in the row: a row without one (a deposit on
/// the queue has no Deposit) leaves its room, so an action is at the same x on every row.
#[test]
fn an_action_is_at_the_same_x_on_a_row_with_fewer_buttons() {
    let (mut w, queued) = deposit_asked_while_paused();
    let new = w.add_folder(&citable_folder(
        &w.lab,
        "water-samples",
        "Water samples 2026",
    ));
    w.harness.step();
    // A row's y, by its name in the table (the details name the dataset too, further right).
    let row_of = |w: &Window, id: i64| {
        let name = w.app().model.row(id).expect("listed").name.clone();
        (w.harness.query_all_by_label(&name))
            .map(|n| n.rect())
            .min_by(|a, b| a.left().total_cmp(&b.left()))
            .unwrap_or_else(|| panic!("{name} in the table"))
            .y_range()
    };
    let (queued_row, new_row) = (row_of(&w, queued), row_of(&w, new));
    let in_row = |w: &Window, label: &str, row: egui::Rangef| {
        (w.harness.query_all_by_label(label))
            .map(|n| n.rect())
            .find(|r| row.contains(r.center().y))
            .unwrap_or_else(|| panic!("{label} in the row at {row:?}"))
    };
    assert!(
        w.harness.query_all_by_label("Deposit").count() == 1,
        "only the new dataset has a Deposit"
    );
    for action in ["📂", "🗑"] {
        let (on_queued, on_new) = (in_row(&w, action, queued_row), in_row(&w, action, new_row));
        assert_eq!(
            on_queued.left(),
            on_new.left(),
            "{action} at {on_queued:?} on the queued row, at {on_new:?} on the new one"
        );
    }
    // The room left for an action a row lacks does not push the others out of sight in the
    // smallest window (800 by 600), the details open.
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.select(new);
    let details_left = w.details_close().left();
    for (id, action) in [(new, "Deposit"), (new, "📂"), (new, "🗑"), (queued, "🗑")] {
        let row = row_of(&w, id);
        let at = (w.harness.query_all_by_label(action))
            .map(|n| n.rect())
            .find(|r| row.contains(r.center().y) && r.left() < details_left)
            .unwrap_or_else(|| panic!("{action} in the row at {row:?}, left of the details"));
        assert!(
            at.right() <= details_left,
            "{action} at {at:?} runs under the details (from x = {details_left})"
        );
    }
}

/// A window closed paused opens paused: what was held back (to look over its metadata
/// before a permanent publish, say) is not sent unasked, and the window says why nothing
/// moves. Resume sends it, and the window after that opens sending.
#[test]
fn a_window_closed_paused_opens_paused_and_sends_nothing_until_resume() {
    let (w, id) = deposit_asked_while_paused();
    let mut w = w.reopen();
    w.wait("the notice", |app| {
        !notices_with(
            app,
            "Deposits are paused, as they were when Lodge was last closed",
        )
        .is_empty()
    });
    for _ in 0..8 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        w.harness.step();
    }
    assert!(!w.app().model.engine_running, "opened sending");
    assert_eq!(
        w.app().status_of(id),
        Some(DedupStatus::Queued { paused: true }),
        "nothing sent before Resume"
    );
    w.harness.get_by_label("▶ Resume").click();
    w.wait("Deposited", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });

    let mut w = w.reopen();
    w.wait("sending", |app| app.model.engine_running);
    assert!(
        notices_with(w.app(), "Deposits are paused").is_empty(),
        "resumed before closing: no pause to speak of"
    );
}

/// A failed deposit's details say why near their top, not only on the row's hover or
/// below the form, and offer Retry there: the same job is sent again with the same key.
#[test]
fn a_failed_deposits_details_say_why_at_their_top_and_retry_the_same_job() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let job = w.first_job(id);
    w.select(id);
    let Some(DedupStatus::Failed { cause }) = w.app().status_of(id) else {
        unreachable!("failed")
    };
    assert!(cause.contains("503"), "{cause}");
    let metadata_heading = w.harness.get_by_label("Metadata").rect().top();
    let said_above_the_form = w
        .harness
        .get_all_by_label(&cause)
        .any(|n| n.rect().bottom() <= metadata_heading);
    assert!(said_above_the_form, "the cause is said above the form");
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("⟳ Retry").click();
    w.wait("deposited by the retry", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    assert_eq!(w.first_job(id), job, "the same job, not a new one");
    w.harness.step();
    assert!(w.harness.query_by_label("⟳ Retry").is_none());
    // Its attempts are counted in all, the 8 of the round that failed too, as the History
    // counts them.
    w.wait_for_label_contains(&format!("Job {job} · deposited · 9 attempts"));
}

/// A failed deposit given up on with the details' Dismiss leaves the row's status (the
/// dataset is ready to deposit again) and Retry all failed; the History still lists it,
/// marked dismissed, and its Retry there sends the same job again with the same key.
#[test]
fn dismiss_in_a_failed_deposits_details_gives_it_up_and_the_historys_retry_brings_it_back() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let job = w.first_job(id);
    w.select(id);
    w.harness.get_by_label("Retry all failed (1)");
    w.harness.get_by_label("Dismiss").click();
    w.wait("the deposit given up on", |app| {
        matches!(app.status_of(id), Some(DedupStatus::New { ready: true }))
    });
    w.harness.step();
    assert!(w.harness.query_by_label("⟳ Retry").is_none());
    w.harness.get_by_label("Retry all failed (0)");
    w.wait_for_label_contains("· failed · dismissed ·");
    assert_eq!(
        notices_with(w.app(), "Dismissed 1 failed deposit: given up on.").len(),
        1
    );
    assert!(
        w.app()
            .model
            .log
            .iter()
            .any(|l| l.text.contains("dismissed in the window")),
        "the log says so"
    );

    w.open_history();
    w.harness.get_by_label("dismissed");
    // The Status filter tells a dismissed job from a failed one still to retry.
    w.harness.state_mut().history.state = Some("failed");
    w.harness.step();
    assert!(w.harness.query_by_label("dismissed").is_none());
    w.harness
        .get_by_label("The one job does not match the search and filters: clear them to see it.");
    w.harness.state_mut().history.state = Some("dismissed");
    w.harness.step();
    w.harness.get_by_label("dismissed");
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("Retry").click();
    w.wait("deposited by the History's retry", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    assert_eq!(w.first_job(id), job, "the same job, not a new one");
}

/// A Dismiss that comes after the job moved on (retried from a terminal meanwhile, say)
/// gives up nothing, and says so, rather than leave the click unanswered.
#[test]
fn a_dismiss_of_a_deposit_queued_again_meanwhile_says_it_was_not_dismissed() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let job = w.first_job(id);
    w.harness.get_by_label("⏸ Pause").click();
    w.wait("paused", |app| !app.model.engine_running);
    w.harness.state().send(Command::Retry { jobs: vec![job] });
    w.wait("queued again", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Queued { .. }))
    });
    w.harness.state().send(Command::Dismiss { jobs: vec![job] });
    let said = format!(
        "Not dismissed: soil-cores (job {job}) is queued again, still to do. Only a failed \
         or refused deposit is given up on."
    );
    w.wait("the notice", |app| !notices_with(app, &said).is_empty());
    assert!(matches!(
        w.app().status_of(id),
        Some(DedupStatus::Queued { .. })
    ));
}

/// A failed deposit whose details hold edits not saved: Retry would send the dataset as
/// it was saved, not as the form shows it, so the buttons say which is sent. *Deposit
/// edits* saves them (a new key, a new job); *Retry as saved* (the row's *Retry*, beside
/// *Deposit edits*) sends the failed job again with its own key, the edits left in the
/// form.
#[test]
fn a_failed_deposit_with_edits_not_saved_says_which_of_them_a_retry_sends() {
    let (mut w, id) = Window::with_a_failed_deposit();
    let failed_job = w.first_job(id);
    let saved_key = w.app().model.row(id).unwrap().key;
    w.edit_title(id, " revised");
    assert!(
        w.harness.query_by_label("⟳ Retry").is_none(),
        "no plain Retry"
    );
    w.harness.get_by_label("⟳ Retry as saved");
    w.harness.get_by_label("Retry");
    assert_eq!(
        w.harness.query_all_by_label("Deposit edits").count(),
        2,
        "in the row and in the details"
    );
    let details_left = w.details_close().left();
    // The row's two retry buttons and its 🗑 fit the row's actions, 250 points wide
    // (`ACTIONS_WIDTH` in src/ui/table.rs): the 📂 gives way.
    const ACTIONS_WIDTH: f32 = 250.0;
    let retry_left = w.harness.get_by_label("Retry").rect().left();
    let remove = w.harness.get_by_label("🗑").rect();
    assert!(
        remove.right() <= retry_left + ACTIONS_WIDTH,
        "🗑 at {remove:?} is cut off (actions from x = {retry_left})"
    );
    assert!(w.harness.query_by_label("📂").is_none());
    w.harness
        .query_all_by_label("Deposit edits")
        .find(|n| n.rect().left() >= details_left)
        .expect("in the details")
        .click();
    w.wait("the edits saved and deposited anew", |app| {
        let row = app.model.row(id).unwrap();
        row.metadata.title == "Soil cores 2026 revised"
            && row.key != saved_key
            && row.jobs.values().any(|j| j.id != failed_job)
    });
    w.wait("the new job failed too", |app| {
        app.status_of(id).map(|s| s.kind()) == Some(StatusKind::Failed)
    });
    let second_job = w
        .app()
        .model
        .row(id)
        .unwrap()
        .current_job(w.app().target_id())
        .unwrap()
        .id;
    assert_ne!(second_job, failed_job);

    w.edit_title(id, " again");
    w.harness
        .state()
        .send(Command::SetSandboxFaults(FaultConfig::default()));
    w.harness.get_by_label("⟳ Retry as saved").click();
    w.wait("deposited by the retry", |app| {
        matches!(app.status_of(id), Some(DedupStatus::Deposited { .. }))
    });
    let row = w.app().model.row(id).unwrap();
    assert_eq!(
        row.current_job(w.app().target_id()).unwrap().id,
        second_job,
        "the same job"
    );
    assert_eq!(row.metadata.title, "Soil cores 2026 revised", "as saved");
    w.harness.step();
    w.harness.get_by_label("✏ Edits not saved");
}

/// A folder with both a CITATION.cff and a .zenodo.json is prefilled from the first, and
/// the window says the second was read only for the files' access and where to give what
/// else only it says, as the command line does: nothing in it is silently left out.
#[test]
fn a_zenodo_json_beside_the_citation_cff_is_said_to_be_read_only_for_access() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    std::fs::write(
        folder.join(".zenodo.json"),
        r#"{"title": "Other title", "communities": [{"identifier": "soil"}]}"#,
    )
    .unwrap();
    let id = w.add_folder(&folder);
    assert_eq!(
        w.app().model.row(id).unwrap().metadata.title,
        "Soil cores 2026"
    );
    let said = notices_with(
        w.app(),
        ".zenodo.json was read only for who may read the files",
    );
    assert_eq!(said.len(), 1, "{said:?}");
    let (level, text) = &said[0];
    assert_eq!(*level, LogLevel::Warning, "{text}");
    assert!(
        text.contains(
            "Lodge reads CITATION.cff; give what else only .zenodo.json says in its details"
        ),
        "{text}"
    );
}

/// A status cut short by the details panel shows one tooltip on hover, the badge's own
/// (which has the whole identifier and more), not the cut label's text stacked on it.
#[test]
fn a_status_cut_short_shows_one_tooltip() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let (identifier, _) = w.deposit_row(id);
    // The details narrow the table: at this width the status column cuts the badge.
    w.select(id);
    w.harness.set_size(egui::vec2(1100.0, 700.0));
    w.harness.step();
    let badge = format!("✔ Deposited · {identifier}");
    // The row's badge (leftmost) and the details' own.
    let shown = w.harness.query_all_by_label(&badge).count();
    w.harness
        .query_all_by_label(&badge)
        .min_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .expect("the row's badge")
        .hover();
    w.wait_for_label(&format!("Deposited as {identifier}."));
    assert_eq!(
        w.harness.query_all_by_label(&badge).count(),
        shown,
        "the badge's cut text is not shown again as a tooltip"
    );
}

/// A deposited dataset whose folder is gone keeps its status where it landed (the deposit
/// stands) and says beside it, in its row and its details, that the folder is missing.
#[test]
fn a_deposited_dataset_whose_folder_is_gone_says_so_beside_its_status() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.deposit_row(id);
    assert!(w.harness.query_by_label("(folder missing)").is_none());
    std::fs::remove_dir_all(&folder).unwrap();

    let mut w = w.reopen();
    w.wait("the folder found gone", |app| app.model.folder_gone(id));
    w.harness.step();
    assert!(matches!(
        w.app().status_of(id),
        Some(DedupStatus::Deposited { .. })
    ));
    assert_eq!(w.harness.query_all_by_label("(folder missing)").count(), 1);
    w.select(id);
    assert_eq!(
        w.harness.query_all_by_label("(folder missing)").count(),
        2,
        "in the row and in the details"
    );
}

/// A History narrowed by its search or filters exports what it shows: the buttons say how
/// many jobs, the file holds those, and the notice says it is part of the history. With
/// nothing shown there is nothing to export.
#[test]
fn history_export_writes_the_jobs_the_search_and_filters_show() {
    let mut w = Window::open(FaultConfig::default());
    for (name, title) in [("soil-cores", "Soil cores 2026"), ("river", "River 2026")] {
        let id = w.add_folder(&citable_folder(&w.lab, name, title));
        w.deposit_row(id);
    }
    w.harness.get_by_label("History").click();
    w.wait("the history", |app| {
        app.model.history.as_ref().is_some_and(|h| h.len() == 2)
    });
    w.harness.step();
    w.type_into("Search:", "river");
    w.harness.step();
    w.harness.get_by_label("Export CSV (1 shown)").click();
    w.wait("the CSV written", |app| app.model.last_export.is_some());
    let path = w.app().model.last_export.clone().unwrap();
    let mut read = csv::Reader::from_path(&path).unwrap();
    let titles: Vec<String> = read.records().map(|r| r.unwrap()[3].to_string()).collect();
    assert_eq!(titles, ["River 2026"]);
    let said = notices_with(w.app(), "History exported");
    assert!(
        said.iter()
            .any(|(_, t)| t.contains("(1 job of 2, as the search and filters show)")),
        "{said:?}"
    );

    w.type_into("Search:", "-no-such-dataset");
    w.harness.step();
    assert!(
        w.harness
            .get_by_label("Export JSON (0 shown)")
            .accesskit_node()
            .is_disabled(),
        "nothing shown, nothing to export"
    );
}

/// A search that leaves no row says so in place of the rows, with a button that shows
/// them all again; a folder added meanwhile is among them.
#[test]
fn a_search_that_matches_nothing_says_so_and_show_all_brings_the_rows_back() {
    let mut w = Window::open(FaultConfig::default());
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.type_into("Search:", "river");
    w.harness.step();
    w.harness
        .get_by_label("No dataset matches the search 'river'.");
    assert!(w.harness.query_by_label("🗑").is_none(), "no row shown");
    w.harness.get_by_label("Show all datasets").click();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.app().table.order.len(), 1);
    assert!(w.harness.query_by_label("Show all datasets").is_none());
    w.harness.get_by_label("🗑");
}

/// What the details' field `label` of a cited dataset does with a mistake and its fix:
/// `mistake` typed in is named beside the field (`named`) and blocks the deposit; replaced by
/// `fix`, no message of its kind (`kind`) is left, and the metadata saved, once `holds` says
/// it has the field, is returned (normalised).
fn mistake_then_fix_saved(
    label: &str,
    mistake: (&str, &str, &str),
    fix: &str,
    holds: impl Fn(&lodge::content::Metadata) -> bool,
) -> lodge::content::Metadata {
    mistake_then_fix_saved_after(&[], label, mistake, fix, holds)
}

/// [`mistake_then_fix_saved`], with the details' fields `before` (label, text) typed in
/// first.
fn mistake_then_fix_saved_after(
    before: &[(&str, &str)],
    label: &str,
    (mistake, named, kind): (&str, &str, &str),
    fix: &str,
    holds: impl Fn(&lodge::content::Metadata) -> bool,
) -> lodge::content::Metadata {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    // Below the details panel's fold: scrolled to (an animation), then typed in.
    w.scroll_to(label);
    for (field, text) in before {
        w.type_into(field, text);
    }
    w.type_into(label, mistake);
    w.harness.step();
    w.harness.get_by_label_contains(named);
    assert!(
        w.deposit_blocked(),
        "{label}: what cannot be sent blocks the deposit"
    );

    w.replace_text(label, fix);
    assert!(
        w.harness.query_by_label_contains(kind).is_none(),
        "{label}: the message goes with the mistake"
    );
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait(&format!("{label} stored"), |app| {
        app.model.row(id).is_some_and(|r| holds(&r.metadata))
    });
    let stored = w.lab.store("app/lodge.db").dataset(id).unwrap().unwrap();
    stored.metadata.normalized()
}

/// A control character pasted into the License, Keywords or Version is named under its
/// field (the form's foot counted a problem that no field showed).
#[test]
fn a_tab_pasted_into_license_keywords_or_version_is_named_under_the_field() {
    for (label, pasted) in [
        ("License", "CC-BY-4.0\tx"),
        ("Keywords", "soil\tcarbon, lake"),
        ("Version", "1.0\tbeta"),
    ] {
        let mut w = Window::open(FaultConfig::default());
        let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
        w.select(id);
        w.scroll_to(label);
        w.type_into(label, pasted);
        w.harness.step();
        w.harness.step();
        w.harness.get_by_label_contains(&format!(
            "{label} has a line break or another control character: write it on one line"
        ));
        assert!(w.deposit_blocked(), "{label}");
    }
}

/// Related works are typed in the details, one a line: one that cannot be sent (a relation
/// type DataCite does not have) is named beside the field and blocks the deposit; fixed,
/// it is stored with the metadata as DataCite spells it.
#[test]
fn a_related_work_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Related works",
        (
            "IsSuplementTo 10.1234/Paper",
            "'IsSuplementTo' is not a DataCite relation type: did you mean IsSupplementTo?",
            "is not a DataCite relation type",
        ),
        "issupplementto https://doi.org/10.1234/Paper",
        |m| !m.related.is_empty(),
    );
    assert_eq!(
        stored.related,
        [lodge::content::RelatedWork {
            relation: "IsSupplementTo".into(),
            identifier: "10.1234/paper".into(),
        }]
    );
}

/// Funding is typed in the details, one funder a line: a line that cannot be read is named
/// beside the field and blocks the deposit; fixed, each funder is stored with its award.
#[test]
fn funding_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Funding",
        (
            "NSF; 2045678",
            "'2045678' should be funder-id=ROR, award=NUMBER or award-title=TITLE",
            "should be funder-id=ROR",
        ),
        "NSF; award=2045678; award-title=Soil cores\n\nWellcome Trust",
        |m| !m.funding.is_empty(),
    );
    let funding: Vec<String> = stored.funding.iter().map(|f| f.describe()).collect();
    assert_eq!(
        funding,
        [
            "NSF; award=2045678; award-title=Soil cores",
            "Wellcome Trust"
        ]
    );
}

/// Contributors are typed in the details, one a line: one whose role DataCite does not have
/// is named beside the field, with the role most likely meant, and blocks the deposit;
/// fixed, it is stored with the role as DataCite spells it.
#[test]
fn a_contributor_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Contributors",
        (
            "Doe, Jane; role=DataColector",
            "'DataColector' is not a DataCite contributor type: did you mean DataCollector?",
            "is not a DataCite contributor type",
        ),
        "Doe, Jane; role=datacollector",
        |m| !m.contributors.is_empty(),
    );
    let said: Vec<String> = stored.contributors.iter().map(|c| c.describe()).collect();
    assert_eq!(said, ["Doe, Jane; role=DataCollector"]);
}

/// Dates are typed in the details, one a line: one that is not a date is named beside the
/// field and blocks the deposit; fixed, it is stored as DataCite spells its type.
#[test]
fn a_date_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Dates",
        (
            "Collected 2025-06-30/2025-03-01",
            "'2025-06-30/2025-03-01' ends before it starts",
            "ends before it starts",
        ),
        "collected 2025-03-01/2025-06-30",
        |m| !m.dates.is_empty(),
    );
    let said: Vec<String> = stored.dates.iter().map(|d| d.describe()).collect();
    assert_eq!(said, ["Collected 2025-03-01/2025-06-30"]);
}

/// Locations are typed in the details, one a line: one with a point out of range is named
/// beside the field and blocks the deposit; fixed, it is stored with its numbers in their
/// shortest spelling.
#[test]
fn a_location_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Locations",
        (
            "Lake Zurich; lat=147.27; lon=8.65",
            "Latitude 147.27 is outside -90 to 90 degrees",
            "is outside",
        ),
        "Lake Zurich; lat=47.270; lon=8.65",
        |m| !m.locations.is_empty(),
    );
    let said: Vec<String> = stored.locations.iter().map(|l| l.describe()).collect();
    assert_eq!(said, ["Lake Zurich; lat=47.27; lon=8.65"]);
}

/// Communities are typed in the details, comma separated: a name that cannot be a
/// community's is named beside the field and blocks the deposit; a community's address is
/// stored as its short name.
#[test]
fn a_community_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved(
        "Communities",
        (
            "soil science",
            "'soil science' is not a community's short name",
            "is not a community's short name",
        ),
        "https://zenodo.org/communities/soil-science, lake-sediments",
        |m| !m.communities.is_empty(),
    );
    assert_eq!(stored.communities, ["soil-science", "lake-sediments"]);
}

/// A creator's affiliation ROR is typed beside the affiliation: a mistyped one is named
/// beside the field and blocks the deposit; fixed, it is stored as its address.
#[test]
fn a_creators_affiliation_ror_typed_in_the_details_is_checked_beside_the_field_and_stored() {
    let stored = mistake_then_fix_saved_after(
        &[("Affiliation", "Sorbonne University")],
        "ROR",
        (
            "02en5vm53",
            "'02en5vm53' is not a ROR id: its last two digits do not match the rest",
            "is not a ROR id",
        ),
        "ROR.org/02EN5VM52",
        |m| {
            m.creators
                .iter()
                .any(|c| c.affiliations.iter().any(|a| a.ror.is_some()))
        },
    );
    let creator = &stored.creators[0];
    assert_eq!(
        creator.affiliations,
        [Affiliation {
            name: "Sorbonne University".into(),
            ror: Some("https://ror.org/02en5vm52".into())
        }]
    );
}

/// A creator may belong to several organisations: the `+` beside the affiliation adds a
/// row for another, whose mistyped ROR is named beside that row and blocks the deposit;
/// fixed and saved, the creator has both affiliations, in the order typed.
#[test]
fn a_second_affiliation_added_with_plus_is_checked_beside_its_row_and_stored_in_order() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    w.scroll_to("Affiliation");
    w.type_into("Affiliation", "Sorbonne University");
    w.type_into("ROR", "02en5vm52");
    w.harness.get_by_label("+").click_accesskit();
    w.harness.step();
    w.harness.step();
    w.replace_nth_text("Affiliation", 1, "ETH Zurich");
    w.replace_nth_text("ROR", 1, "05a28rw59");
    w.harness
        .get_by_label_contains("'05a28rw59' is not a ROR id: its last two digits");
    assert!(w.deposit_blocked(), "a mistyped ROR blocks the deposit");

    w.replace_nth_text("ROR", 1, "05A28RW58");
    assert!(
        w.harness
            .query_by_label_contains("is not a ROR id")
            .is_none()
    );
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait("both affiliations stored", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.metadata.creators[0].affiliations.len() == 2)
    });
    let stored = w.lab.store("app/lodge.db").dataset(id).unwrap().unwrap();
    assert_eq!(
        stored.metadata.normalized().creators[0].affiliations,
        [
            Affiliation {
                name: "Sorbonne University".into(),
                ror: Some("https://ror.org/02en5vm52".into())
            },
            Affiliation {
                name: "ETH Zurich".into(),
                ror: Some("https://ror.org/05a28rw58".into())
            }
        ]
    );
    // The second row's ✖ (the last in the panel) takes it away again.
    assert_eq!(w.harness.get_all_by_label("Affiliation").count(), 2);
    (w.harness.get_all_by_label("✖").last())
        .expect("the second row has its ✖")
        .click_accesskit();
    w.harness.step();
    w.harness.step();
    assert_eq!(w.harness.get_all_by_label("Affiliation").count(), 1);
    assert_eq!(
        (w.harness.get_by_label("Affiliation"))
            .accesskit_node()
            .value()
            .as_deref(),
        Some("Sorbonne University")
    );
}

/// A creator named as an organisation is offered a *ROR ID* field of its own in place of
/// the ORCID iD: a mistyped one is named beside it and blocks the deposit; fixed and
/// saved, it is stored as its address.
#[test]
fn an_organisation_creator_gets_its_own_ror_field_checked_and_stored() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    let id = w.add_folder(&folder);
    w.select(id);
    w.scroll_to("ORCID");
    assert!(
        w.harness.query_by_label("ROR ID").is_none(),
        "a person has none"
    );
    w.replace_nth_text("Name", 0, "European Organization for Nuclear Research");
    assert!(
        w.harness.query_by_label("ORCID").is_none(),
        "an organisation is offered its ROR, not an ORCID iD"
    );
    w.type_into("ROR ID", "01ggx4158");
    w.harness.step();
    w.harness
        .get_by_label_contains("'01ggx4158' is not a ROR id: its last two digits");
    assert!(w.deposit_blocked(), "a mistyped ROR blocks the deposit");
    w.replace_text("ROR ID", "ror.org/01GGX4157");
    assert!(
        w.harness
            .query_by_label_contains("is not a ROR id")
            .is_none()
    );
    w.harness.get_by_label("Save metadata").click_accesskit();
    w.wait("the organisation's ROR stored", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.metadata.creators[0].ror.is_some())
    });
    let stored = w.lab.store("app/lodge.db").dataset(id).unwrap().unwrap();
    let creator = &stored.metadata.creators[0];
    assert_eq!(creator.name, "European Organization for Nuclear Research");
    assert_eq!(creator.ror.as_deref(), Some("https://ror.org/01ggx4157"));
}

/// The language is typed in the details: text that names none is named beside the field,
/// with the language most likely meant, and blocks the deposit; fixed, it is stored as its
/// ISO 639-3 code and shown by its name.
#[test]
fn a_language_typed_in_the_details_is_checked_beside_the_field_and_stored_as_its_code() {
    let stored = mistake_then_fix_saved(
        "Language",
        (
            "Englsh",
            "'Englsh' is not a language: did you mean English? Or give an ISO 639 code or an \
             English name",
            "is not a language",
        ),
        "english",
        |m| m.language.is_some(),
    );
    assert_eq!(stored.language.as_deref(), Some("eng"));
}

/// "Retry all failed" counts the picked target's failed deposits, as the table's statuses
/// are; the History lists every target's. Its hover says whose, and where the others are.
#[test]
fn retry_all_failed_says_it_is_of_the_picked_target() {
    let (mut w, _) = Window::with_a_failed_deposit();
    w.harness.step();
    w.harness.get_by_label("Retry all failed (1)").hover();
    let said = "Re-queue every failed deposit to Local sandbox with the same key (failed \
                deposits to other targets: pick their target, or use Retry in the History)";
    w.wait_for_label(said);
}

/// Ctrl+F searches the view shown: in the History, its own search, not the datasets'.
#[test]
fn ctrl_f_in_the_history_focuses_the_historys_search() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.open_history();
    w.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("Search:").type_text("soil");
    w.harness.step();
    assert_eq!(
        w.app().view,
        lodge::ui::View::History,
        "stays in the History"
    );
    assert_eq!(w.app().history.search, "soil");
    assert_eq!(w.app().table.search, "", "not the datasets' search");
}

/// An embargo whose end has come is warned of beside its date, as `lodge add` warns: the
/// files would be open at once. (Here read from a `.zenodo.json` beside the CITATION.cff.)
#[test]
fn an_embargo_whose_end_has_come_is_warned_of_in_the_details() {
    let mut w = Window::open(FaultConfig::default());
    let folder = citable_folder(&w.lab, "soil-cores", "Soil cores 2026");
    std::fs::write(
        folder.join(".zenodo.json"),
        r#"{"access_right": "embargoed", "embargo_date": "2020-01-31"}"#,
    )
    .unwrap();
    let id = w.add_folder(&folder);
    w.select(id);
    w.harness.step();
    w.harness
        .get_by_label_contains("The embargo ends on 2020-01-31, which has come");
}

/// Settings' defaults go on every folder added: a name without its comma and a license
/// that is not an SPDX identifier are pointed out there, with the fix a button puts in,
/// as the details do for one dataset.
#[test]
fn settings_point_out_a_name_without_its_comma_and_a_license_repositories_get_as_text() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.replace_text("Your name", "Marie Curie");
    w.replace_text("License", "CC BY 4.0");
    w.harness
        .get_by_label_contains("No comma: repositories would take your name");
    w.harness.get_by_label_contains("Not an SPDX identifier");
    w.harness.get_by_label("Use Curie, Marie").click();
    // Its hint gone, the rows below move up: the next click where they are now.
    w.harness.step();
    w.harness.step();
    w.harness.get_by_label("Use CC-BY-4.0").click();
    w.harness.step();
    w.harness.step();
    let value = |w: &Window, label: &str| w.harness.get_by_label(label).value();
    assert_eq!(value(&w, "Your name").as_deref(), Some("Curie, Marie"));
    assert_eq!(value(&w, "License").as_deref(), Some("CC-BY-4.0"));
    assert!(
        w.harness
            .query_by_label_contains("No comma: repositories would take your name")
            .is_none()
    );
}

/// A deposited dataset whose edits were saved with a problem reads *New version*, its
/// Deposit greyed out: the row says why, not the details alone.
#[test]
fn a_new_version_saved_with_a_problem_says_so_beside_its_badge() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.deposit_row(id);
    w.edit_title(id, "");
    w.harness.get_by_label("Save").click();
    w.wait("saved with its problem", |app| {
        app.model
            .row(id)
            .is_some_and(|r| r.metadata.title.is_empty() && !r.problems.is_empty())
    });
    w.harness.step();
    assert!(matches!(
        w.app().status_of(id),
        Some(DedupStatus::NewVersion { .. })
    ));
    w.harness.get_by_label("(metadata incomplete)");
}

/// Settings closed by its ✖ with changes typed and not saved stays open and says so, with
/// Save settings and Discard changes; closing the whole window asks too. Without changes
/// the ✖ closes it at once; Discard changes closes it, nothing saved.
#[test]
fn settings_closed_with_changes_not_saved_asks_to_save_or_discard_them() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.harness.get_by_label("Close window").click();
    w.harness.step();
    w.harness.step();
    assert!(!w.app().settings.is_open(), "nothing typed: closed");

    w.open_settings();
    w.type_into("Your name", "Curie, Marie");
    w.harness.get_by_label("Close window").click();
    w.harness.step();
    w.harness.step();
    assert!(w.app().settings.is_open(), "what was typed is kept");
    w.harness
        .get_by_label("Changes not saved: save them, or discard them to close Settings.");
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness
        .get_by_label_contains("Settings has changes not saved. Closing without saving throws");
    w.harness.get_by_label("Keep Lodge open").click();
    w.harness.step();

    w.harness.get_by_label("Discard changes").click();
    w.harness.step();
    w.harness.step();
    assert!(!w.app().settings.is_open());
    assert_eq!(w.app().model.settings.name, "", "nothing saved");
    assert!(!request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
}

/// Settings open with the keyboard in their first field. Escape closes them as their ✖
/// does (from a text field too: what was typed is kept, asking), and so does the Settings
/// button pressed again: it opened them anew, over what was typed.
#[test]
fn escape_or_the_settings_button_again_closes_settings_keeping_what_was_typed() {
    let mut w = Window::open(FaultConfig::default());
    w.open_settings();
    w.harness.step();
    assert!(
        w.harness.get_by_label("Your name").is_focused(),
        "the first field"
    );
    w.press(egui::Key::Escape);
    assert!(
        !w.app().settings.is_open(),
        "nothing typed: Escape closed it"
    );

    w.open_settings();
    w.type_into("Your name", "Curie, Marie");
    w.press(egui::Key::Escape);
    assert!(w.app().settings.is_open(), "what was typed is kept");
    w.harness
        .get_by_label("Changes not saved: save them, or discard them to close Settings.");

    w.harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Settings")
        .click();
    w.harness.step();
    w.harness.step();
    assert!(w.app().settings.is_open(), "still asking");
    let typed = w.harness.get_by_label("Your name").value();
    assert_eq!(typed.as_deref(), Some("Curie, Marie"), "not opened anew");
    w.harness.get_by_label("Discard changes").click();
    w.harness.step();
    w.harness.step();
    assert!(!w.app().settings.is_open());
    w.open_settings();
    w.harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Settings")
        .click();
    w.harness.step();
    assert!(!w.app().settings.is_open(), "pressed again, closed");
}

/// A dataset removed from the list keeps its name in the log panel and the History, marked
/// removed (as `lodge history` names it), not a bare number; its failed job offers no Retry
/// there: removing the dataset said not to deposit it.
#[test]
fn a_removed_datasets_log_lines_and_history_keep_its_name_and_offer_no_retry() {
    let (mut w, id) = Window::with_a_failed_deposit();
    w.ask_to_remove(id);
    w.harness.get_by_label("Remove").click();
    w.wait("removed", |app| app.model.row(id).is_none());
    let named = |w: &mut Window| {
        w.harness.step();
        w.harness
            .query_all_by_label_contains("soil-cores (removed): ")
            .count()
    };
    assert!(named(&mut w) > 0, "its lines name it");
    assert!(
        w.harness
            .query_by_label_contains(&format!("#{id}: "))
            .is_none(),
        "no line names it by number"
    );

    w.open_history();
    w.harness.get_by_label("soil-cores (removed)");
    assert!(
        w.harness.query_by_label("Retry").is_none(),
        "no Retry for a removed dataset's job"
    );
    w.harness.get_by_label("removed");

    // Opened again, the window names it the same, from the store.
    let mut w = w.reopen();
    w.wait("the log read", |app| !app.model.log.is_empty());
    assert!(named(&mut w) > 0, "its lines name it after a restart");
}

/// A creator whose name has a comma is a person's "Family, Given" unless the form says it
/// is an organisation's: a `CITATION.cff` entity (`name:`) comes ticked, and unticking it
/// and saving makes it a person (another key).
#[test]
fn an_organisation_whose_name_has_a_comma_is_ticked_so_in_the_details() {
    let mut w = Window::open(FaultConfig::default());
    let cff = "cff-version: 1.2.0\ntitle: Cores\nauthors:\n  - name: \"University of \
               California, Berkeley\"\ndate-released: 2026-03-01\npublisher: Lodge test lab\n";
    let folder = w.lab.folder(
        "cores",
        &[("CITATION.cff", cff.as_bytes()), ("data.csv", b"1,2\n")],
    );
    let id = w.add_folder(&folder);
    let key = w.app().model.row(id).and_then(|r| r.key);
    assert!(w.app().model.row(id).unwrap().metadata.creators[0].organisation);
    // A person's "Family, Given" is offered no such tick.
    let person = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.open_details("soil-cores", |_| true);
    let tick = "An organisation (the comma is part of its name)";
    assert!(w.harness.query_by_label(tick).is_none());
    assert!(person != id);
    w.open_details("cores", |_| true);
    let checked = |w: &Window| {
        w.harness.get_by_label(tick).accesskit_node().toggled()
            == Some(egui::accesskit::Toggled::True)
    };
    assert!(checked(&w));
    w.harness.get_by_label(tick).click();
    // Save shows above the form on the frame after the edit.
    w.harness.step();
    w.harness.step();
    assert!(!checked(&w));
    w.harness.get_by_label("Save").click();
    w.wait("saved as a person", |app| {
        app.model
            .row(id)
            .is_some_and(|r| !r.metadata.creators[0].organisation && r.key != key)
    });
}

/// Escape in the *Close Lodge?* dialog closes the dialog, not the details behind it; the
/// edits it named are still there, unsaved.
#[test]
fn escape_in_the_close_dialog_closes_the_dialog_not_the_details_behind_it() {
    let mut w = Window::open(FaultConfig::default());
    let id = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.select(id);
    w.harness.get_by_label("Title").focus();
    w.harness.get_by_label("Title").type_text(", revised");
    w.harness.step();
    // Out of the field (Escape leaves it, and leaves the details open).
    w.harness.key_press(egui::Key::Escape);
    w.harness.step();
    w.harness.step();
    assert_eq!(w.app().selected, Some(id));
    assert!(request_close(&mut w).contains(&egui::ViewportCommand::CancelClose));
    w.harness.step();
    w.harness.get_by_label("Close Lodge?");
    w.harness.key_press(egui::Key::Escape);
    w.harness.step();
    w.harness.step();
    assert!(w.harness.query_by_label("Close Lodge?").is_none());
    assert_eq!(w.app().selected, Some(id), "the details stay open");
    w.harness.get_by_label("✏ Edits not saved");
}

/// A drop-down list picked from by keyboard closes on the pick (Enter or Space), as a
/// click closes it, and the keyboard stays on it.
#[test]
fn a_drop_down_list_closes_when_the_keyboard_picks_from_it() {
    let mut w = Window::open(FaultConfig::default());
    w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    w.harness.get_by_label("Status:").focus();
    w.harness.step();
    w.press(egui::Key::Space);
    assert!(egui::Popup::is_any_open(&w.harness.ctx), "opened");
    w.press(egui::Key::ArrowDown);
    w.press(egui::Key::ArrowDown);
    w.press(egui::Key::Enter);
    assert!(
        !egui::Popup::is_any_open(&w.harness.ctx),
        "closed on the pick"
    );
    assert_eq!(
        w.app().table.filter,
        Some(StatusKind::New),
        "{:?}",
        w.app().table.filter
    );
}
