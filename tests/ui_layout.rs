//! The window's layout at the sizes people use it at (the smallest, 800x600, a laptop's
//! 1024x768): what the details panel and the notices each get of the screen, and that
//! nothing they show is cut off or hidden.

mod gui;
mod support;

use egui_kittest::kittest::Queryable;
use lodge::app::{Command, DedupStatus, Notice, Update};
use lodge::sandbox::FaultConfig;

use gui::{Window, citable_folder};

/// A window with two datasets: `plain`, not deposited anywhere, and `soil-cores`, whose
/// copy with a long folder name was deposited (the same key: one deposit for both, listed
/// in soil-cores' details as the copy's, under a header naming it). Their ids.
fn plain_and_deposited() -> (Window, i64, i64) {
    let mut w = Window::open(FaultConfig::default());
    let plain = w.add_folder(&citable_folder(&w.lab, "plain", "Plain 2026"));
    let copy = w.add_folder(&citable_folder(
        &w.lab,
        "soil-cores-as-kept-on-the-shared-lab-drive-2026",
        "Soil cores 2026",
    ));
    let deposited = w.add_folder(&citable_folder(&w.lab, "soil-cores", "Soil cores 2026"));
    let target = w.app().target_id().to_string();
    w.app().send(Command::Deposit {
        ids: vec![copy],
        target,
    });
    w.wait("the copy deposited", |app| {
        matches!(app.status_of(copy), Some(DedupStatus::Deposited { .. }))
    });
    (w, plain, deposited)
}

/// Where the details panel is on screen, once `name`'s details are open and drawn.
fn details_of(w: &mut Window, name: &str) -> egui::Rect {
    w.open_details(name, |d| !d.jobs.is_empty() || name == "plain");
    w.harness.run_steps(4);
    w.app().details.drawn().expect("the details are drawn")
}

/// The details panel's width is the window's to choose (and the person's, who drags its
/// edge), not what it shows: a dataset with deposits (a job's header naming the copy that
/// made it, Copy citation · Copy identifier · Copy link · Open record) gets the same panel
/// as one without, every part of it on screen; at 800x600 the panel used to lay out wider
/// than the room it had, its left part (the close button, the name, the fields' labels)
/// cut off. Shrinking the window and enlarging it again gives the panel its width back.
#[test]
fn the_details_panel_is_as_wide_for_every_dataset_and_all_of_it_is_on_screen() {
    let (mut w, _, _) = plain_and_deposited();
    let mut widths = Vec::new();
    for size in [egui::vec2(800.0, 600.0), egui::vec2(1024.0, 768.0)] {
        w.harness.set_size(size);
        let mut drawn = Vec::new();
        for name in ["plain", "soil-cores", "plain"] {
            let panel = details_of(&mut w, name);
            assert!(
                panel.left() >= 0.0 && panel.right() <= size.x,
                "at {size:?} the panel {panel:?} is not all in the window"
            );
            let close = w.details_close();
            let title = w.harness.get_by_label("Title").rect();
            let attempts = w.harness.get_by_label("Deposit attempts").rect();
            for (what, at) in [
                ("✖", close),
                ("Title", title),
                ("Deposit attempts", attempts),
            ] {
                assert!(
                    at.left() >= panel.left() && at.right() <= panel.right() + 0.5,
                    "at {size:?} {name}'s {what} at {at:?} is not in the panel {panel:?}"
                );
            }
            drawn.push(panel.width());
        }
        assert!(
            drawn.iter().all(|d| (d - drawn[0]).abs() < 1.0),
            "at {size:?} the panel's width changed with the dataset shown: {drawn:?}"
        );
        widths.push(drawn[0]);
    }
    // Shrunk to the smallest and enlarged again: the width it had.
    w.harness.set_size(egui::vec2(800.0, 600.0));
    details_of(&mut w, "soil-cores");
    w.harness.set_size(egui::vec2(1024.0, 768.0));
    let again = details_of(&mut w, "soil-cores").width();
    assert!(
        (again - widths[1]).abs() < 1.0,
        "the panel was {} wide at 1024x768, {again} after the window was shrunk and enlarged",
        widths[1]
    );
}

/// A dataset selected anew opens its details at their top, not where they were scrolled to
/// when it was shown before (egui keeps scroll positions, even from one run to the next:
/// the first dataset selected in a window just opened showed the foot of its details).
#[test]
fn details_open_at_their_top_for_a_dataset_selected_anew() {
    let (mut w, _, _) = plain_and_deposited();
    w.harness.set_size(egui::vec2(1024.0, 768.0));
    // Whether `name`'s details, once opened, show their top: the ✖ at the panel's top.
    let opens_at_the_top = |w: &mut Window, name: &str| {
        let panel = details_of(w, name);
        let close = w.details_close();
        close.top() >= panel.top() && close.bottom() <= panel.top() + 40.0
    };
    assert!(opens_at_the_top(&mut w, "soil-cores"), "opens at the top");
    let panel = w.app().details.drawn().expect("drawn");
    w.wheel_down_to_the_end(panel.center());
    let close = w.details_close();
    assert!(
        close.bottom() < panel.top(),
        "scrolled down, the ✖ ({close:?}) is out of sight above {panel:?}"
    );
    // Another dataset, then this one again: each at its top.
    assert!(opens_at_the_top(&mut w, "plain"), "plain opens at its top");
    assert!(
        opens_at_the_top(&mut w, "soil-cores"),
        "soil-cores, selected again, opens at its top, not where it was left"
    );
    // Closed and opened again: the same.
    w.wheel_down_to_the_end(panel.center());
    w.harness.state_mut().select(None);
    w.harness.run_steps(2);
    assert!(
        opens_at_the_top(&mut w, "soil-cores"),
        "closed and selected again, it opens at its top"
    );
}

/// Two notices up at once are both in view, whole: the older one used to be cut to the
/// height of the first (the notices' area measured itself when there was one), its text
/// and ✖ hidden until the newer one went.
#[test]
fn two_notices_show_whole_one_above_the_other() {
    let mut w = Window::open(FaultConfig::default());
    for n in 1..=12 {
        w.add_folder(&citable_folder(&w.lab, &format!("run{n}"), "Run 2026"));
    }
    w.harness.set_size(egui::vec2(1024.0, 768.0));
    let first = "The folder of 1 dataset changed since the last scan: run1 (1 file added).";
    let second = "The folders of these datasets are gone (moved or deleted): run2, run3, \
                  run4 and 8 more. Drop each where it is now onto the window to add it \
                  there, or remove its row (what it deposited stays).";
    w.harness
        .state_mut()
        .model
        .apply(Update::Notice(Notice::warning(first)));
    w.harness.run_steps(4);
    w.harness
        .state_mut()
        .model
        .apply(Update::Notice(Notice::warning(second)));
    w.harness.run_steps(4);
    let area = w.app().notices.drawn().expect("notices shown");
    // The log has the same words: the notice is the one drawn last.
    let notice = |w: &Window, text: &str| {
        (w.harness.query_all_by_value(text).last())
            .expect("the notice")
            .rect()
    };
    // The notices are drawn last: theirs are the last two ✖ (the details' come before).
    let mut closes: Vec<egui::Rect> = w
        .harness
        .query_all_by_label("✖")
        .map(|n| n.rect())
        .collect();
    let closes = closes.split_off(closes.len() - 2);
    for (what, at) in [
        ("the first notice", notice(&w, first)),
        ("the second notice", notice(&w, second)),
        ("the first ✖", closes[0]),
        ("the second ✖", closes[1]),
    ] {
        assert!(
            area.contains_rect(at),
            "{what} at {at:?} is not in view in the notices' area {area:?}"
        );
    }
}

/// At 800x600, a failed deposit's details with edits not saved: the rows of buttons that
/// are then wider than the panel (Retry as saved · Dismiss · Deposit edits, Save metadata ·
/// Deposit to Local sandbox · Undo edits) wrap inside it, as does a deposit's header; they
/// used to run past its edge (and, before the panel kept its width, widen it).
#[test]
fn at_800_by_600_the_details_rows_of_buttons_wrap_inside_the_panel() {
    let (mut w, id) = Window::with_a_failed_deposit();
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.edit_title(id, " (edited)");
    w.harness.run_steps(3);
    let panel = w.app().details.drawn().expect("the details are drawn");
    let in_panel = |w: &Window, label: &str| {
        // The row's own buttons are left of the panel.
        let at = (w.harness.query_all_by_label(label))
            .map(|n| n.rect())
            .find(|r| r.left() >= panel.left())
            .unwrap_or_else(|| panic!("{label} in the details"));
        assert!(
            at.left() >= panel.left() && at.right() <= panel.right(),
            "{label} at {at:?} is not within the panel {panel:?}"
        );
    };
    for label in [
        "⟳ Retry as saved",
        "Dismiss",
        "Deposit edits",
        "Save metadata",
        "Deposit to Local sandbox",
        "Undo edits",
    ] {
        in_panel(&w, label);
    }
    let header = (w.harness.query_all_by_label_contains("Job ").last())
        .expect("the job's header")
        .rect();
    assert!(
        header.right() <= panel.right(),
        "the job's header at {header:?} runs past the panel {panel:?}"
    );
}

/// With the details open in a window about a laptop's width, the list's count ("1 of 1
/// dataset") reads on one line: where the bar's line had little room left it went onto
/// two, its last word under its first.
#[test]
fn the_lists_count_is_on_one_line() {
    let (mut w, id) = Window::with_a_failed_deposit();
    w.harness.set_size(egui::vec2(1000.0, 768.0));
    w.select(id);
    let count = w.harness.get_by_label("1 of 1 dataset").rect();
    let line = w.harness.get_by_label("Search:").rect().height();
    assert!(
        count.height() <= line + 1.0,
        "the count at {count:?} takes more than a line ({line})"
    );
}

/// A name written without its comma gets a button that writes it "Family, Given": for a
/// surname longer than the panel is wide, the button is cut short on one line, inside the
/// panel, not broken mid-word over several.
#[test]
fn the_family_given_button_of_a_very_long_name_is_one_line_inside_the_panel() {
    let mut w = Window::open(FaultConfig::default());
    let folder = w.lab.folder("untitled", &[("a.csv", b"x\n1\n")]);
    let id = w.add_folder(&folder);
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.select(id);
    w.harness.get_by_label("+ Add creator").click();
    w.harness.run_steps(2);
    (w.harness)
        .get_by_role_and_label(egui::accesskit::Role::TextInput, "Name")
        .type_text("Jane Doe-Vanderbiltextraordinarilylonghyphenatedsurname");
    w.harness.run_steps(3);
    let panel = w.app().details.drawn().expect("the details are drawn");
    let button = (w.harness)
        .get_by_label_contains("Use Doe-Vanderbilt")
        .rect();
    let line = w.harness.get_by_label("+ Add creator").rect().height();
    assert!(
        button.height() <= line + 1.0,
        "the button at {button:?} takes more than a line ({line})"
    );
    assert!(
        button.left() >= panel.left() && button.right() <= panel.right(),
        "the button at {button:?} is not within the panel {panel:?}"
    );
}

/// At 800x600 with the details open, a failed row with edits not saved shows Retry and
/// Deposit edits, and still its 🗑 beside them, whole, left of the panel: the row's "Retry
/// as saved" used to push the 🗑 under it.
#[test]
fn at_800_by_600_a_failed_row_with_edits_keeps_its_remove_button_in_sight() {
    let (mut w, id) = Window::with_a_failed_deposit();
    w.harness.set_size(egui::vec2(800.0, 600.0));
    w.edit_title(id, " (edited)");
    w.harness.run_steps(3);
    let panel = w.app().details.drawn().expect("the details are drawn");
    for label in ["Retry", "Deposit edits", "🗑"] {
        let at = (w.harness.query_all_by_label(label))
            .map(|n| n.rect())
            .find(|r| r.left() < panel.left())
            .unwrap_or_else(|| panic!("{label} in the row"));
        assert!(
            at.right() <= panel.left(),
            "the row's {label} at {at:?} runs under the details panel {panel:?}"
        );
    }
}

/// While Settings is open, the notices keep off it and off the details: beside it where the
/// window leaves them room, else in it, at its foot (every size with the details open),
/// where they cover none of its fields nor Save settings, and stay in view.
#[test]
fn notices_never_cover_settings() {
    let text = "The folders of these datasets are gone (moved or deleted): run2, run3, run4 \
                and 8 more. Drop each where it is now onto the window to add it there.";
    for (size, details, beside) in [
        ((1280.0, 800.0), false, true),
        ((1280.0, 800.0), true, false),
        ((1024.0, 768.0), true, false),
        ((800.0, 600.0), false, false),
    ] {
        let (mut w, _, _) = plain_and_deposited();
        w.harness.set_size(egui::vec2(size.0, size.1));
        w.harness.run_steps(2);
        let details = details.then(|| details_of(&mut w, "soil-cores"));
        w.open_settings();
        (w.harness.state_mut().model).apply(Update::Notice(Notice::warning(text)));
        w.harness.run_steps(4);
        let settings = (w.harness.ctx)
            .memory(|m| m.area_rect(lodge::ui::settings_window::window_id()))
            .expect("Settings is open");
        // The log has the same words: the notice's are drawn last.
        let notice = (w.harness.query_all_by_value(text).last())
            .expect("the notice")
            .rect();
        assert!(
            w.harness.ctx.content_rect().contains_rect(notice),
            "at {size:?}, the notice {notice:?} is on screen"
        );
        if let Some(details) = details {
            assert!(
                !details.intersect(notice).is_positive(),
                "at {size:?}, the notice {notice:?} covers the details {details:?}"
            );
        }
        match beside {
            true => assert!(
                !settings.intersect(notice).is_positive(),
                "at {size:?}, the notice {notice:?} covers Settings {settings:?}"
            ),
            false => {
                assert!(
                    settings.contains_rect(notice),
                    "at {size:?}, the notice {notice:?} is in Settings {settings:?}"
                );
                // Below everything Settings holds: its Save buttons and fields are above.
                let save = w.harness.get_by_label("Save settings").rect();
                assert!(
                    save.bottom() <= notice.top(),
                    "at {size:?}, Save settings {save:?} is above the notice {notice:?}"
                );
            }
        }
    }
}
