//! Confirmation dialogs: removing a dataset (what it deposited stays, and adding its folder
//! again brings its metadata back), and closing the
//! window while it sends deposits, has more on the queue to send, hashes folders, or holds
//! metadata edits or Settings' changes not saved.

use super::LodgeApp;
use crate::app::{Command, WorkInHand};
use crate::engine::is_being_sent;
use crate::store::JobRow;
use crate::wording::count_of;

#[derive(Default)]
pub struct Dialogs {
    /// A dataset waiting for the person to confirm its removal.
    pub confirm_remove: Option<i64>,
    /// A close of the window held back to ask first.
    pub confirm_close: bool,
    /// The person said to close anyway: the next close request is let through.
    pub close_allowed: bool,
    /// The tallest each dialog's text has been since it opened: work that ends while it is
    /// read takes its paragraph away, and the buttons below must not move under the pointer.
    close_text_height: f32,
    remove_text_height: f32,
    /// Frames the remove dialog has asked for its Cancel to have the keyboard since it
    /// opened (the first Tab or Enter must not remove), or [`HAD_IT`] once it had it.
    remove_cancel_asked: u8,
    /// The same for the close dialog's *Keep Lodge open*.
    close_keep_asked: u8,
    /// The close dialog's Save and close was pressed: what it sent to be saved, awaited
    /// before the window closes.
    saving_to_close: Option<SavingToClose>,
    /// A save sent by Save and close failed: the dialog says so until it closes.
    save_to_close_failed: bool,
}

/// The saves that Save and close sent, which the window waits for before it closes.
struct SavingToClose {
    /// The Settings sent to be saved, if any: saved once the service says they are.
    settings: Option<crate::app::Settings>,
    /// Error notices before the saves were sent: one more, and a save failed.
    errors_before: u64,
}

/// A confirmation anchored by its top edge (a fifth down the window), not its centre: text
/// that shrinks while it is open would otherwise re-centre it and move its buttons.
fn confirmation(id: &str, ctx: &egui::Context) -> egui::Modal {
    let id = egui::Id::unique(id);
    let top = (ctx.content_rect().height() * 0.2).round();
    egui::Modal::new(id)
        .area(egui::Modal::default_area(id).anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, top)))
}

/// Draw a confirmation's `text` in a block at least as tall as it has been at its tallest
/// (`tallest`, kept across frames): the buttons under it stay where they were when a
/// paragraph goes.
fn steady_text(ui: &mut egui::Ui, tallest: &mut f32, text: impl FnOnce(&mut egui::Ui)) {
    let height = ui
        .vertical(|ui| {
            ui.set_min_height(*tallest);
            text(ui);
        })
        .response
        .rect
        .height();
    *tallest = tallest.max(height);
}

/// Draw a confirmation's `text` in a block of the height it had when the confirmation
/// opened (`opened_at`, 0 until then, kept across frames): lines that go leave room, and
/// lines that come (a deposit landing meanwhile) scroll within it, so the buttons under it
/// never move.
fn fixed_text(ui: &mut egui::Ui, opened_at: &mut f32, text: impl FnOnce(&mut egui::Ui)) {
    if *opened_at == 0.0 {
        *opened_at = ui.vertical(text).response.rect.height();
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("confirmation_text")
        .max_height(*opened_at)
        .auto_shrink([false, false])
        .show(ui, text);
}

/// What a dialog's `asked` counter holds once its safe button had the keyboard.
const HAD_IT: u8 = u8::MAX;

/// Give a dialog's safe button (Cancel, Keep Lodge open) the keyboard as the dialog opens,
/// so that an Enter typed by habit keeps what it asks about (Settings give it their first
/// field). Asked again until it has it
/// (the dialog's first frame, a sizing pass, does not keep it), a few frames at most:
/// never held there against a Tab. `asked` counts the frames, 0 when the dialog opens.
pub(super) fn give_the_keyboard(button: &egui::Response, asked: &mut u8) {
    match (button.has_focus(), *asked) {
        (true, _) => *asked = HAD_IT,
        (false, n @ 0..4) => {
            button.request_focus();
            *asked = n + 1;
        }
        _ => {}
    }
}

/// Hold back a close of the window while it sends deposits, has more on the queue to
/// send, hashes folders, or holds metadata edits or Settings' changes not saved, and ask.
/// The queue would lose nothing (it is durable and the keys do not change), but what is
/// queued waits for the next start, an upload cut short starts over and a folder being
/// added is not on the list; what was typed and not saved would be gone for good.
pub fn hold_close_while_working(app: &mut LodgeApp, ctx: &egui::Context) {
    if app.dialogs.close_allowed || !ctx.input(|i| i.viewport().close_requested()) {
        return;
    }
    if !app.model.work_in_hand().is_empty()
        || !unsaved_names(app).is_empty()
        || settings_not_saved(app)
    {
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        app.dialogs.confirm_close = true;
    }
}

/// Whether the open Settings hold changes not saved.
fn settings_not_saved(app: &LodgeApp) -> bool {
    app.settings.has_changes(&app.model.settings)
}

/// What the close dialog says of Settings' changes not saved.
const SETTINGS_QUESTION: &str = "Settings has changes not saved. Closing without saving throws \
     them away; Save and close saves them first (as Save settings does).";

/// The names of the datasets whose metadata edits are not saved, in the list's order of
/// adding.
fn unsaved_names(app: &LodgeApp) -> Vec<String> {
    let model = &app.model;
    app.details
        .edits_not_stored(|id| model.row(id).map(|r| &r.metadata))
        .into_iter()
        .filter_map(|id| model.row(id).map(|r| r.name.clone()))
        .collect()
}

/// What the close dialog says closing now would throw away: the edits of `names`.
fn unsaved_question(names: &[String]) -> String {
    let of = match names {
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
        [] => String::new(),
    };
    let (has, each) = match names.len() {
        1 => ("has", "it"),
        _ => ("have", "each"),
    };
    format!(
        "The metadata of {of} {has} edits not saved. Closing without saving throws them \
         away. Save and close saves them first (re-keying {each}, as Save does); or keep Lodge \
         open, select {each} and press Save beside ✏ Edits not saved at the top of its \
         details."
    )
}

/// Why Save and close cannot save everything now, naming what stands in the way; `None`
/// when it can. It saves as the details' Save and Settings' Save settings would, so what
/// disables those disables it.
fn cannot_save_to_close(app: &LodgeApp, unsaved: &[i64]) -> Option<String> {
    for &id in unsaved {
        let (Some(row), Some(form)) = (app.model.row(id), app.details.form_of(id)) else {
            continue;
        };
        if row.hashing.is_some() {
            return Some(format!(
                "{} is being hashed: its edits can be saved once that is done",
                row.name
            ));
        }
        if app.model.folder_gone(id) {
            return Some(format!(
                "The folder of {} is gone: saving re-keys the folder, so its edits cannot be \
                 saved until it is added where it is now",
                row.name
            ));
        }
        if let Some(why) = form.unsaveable() {
            return Some(format!("{}: {why}", row.name));
        }
    }
    let problem = settings_not_saved(app)
        .then(|| app.settings.problem())
        .flatten();
    problem.map(|why| format!("Settings: {why}"))
}

/// Send the saves of `unsaved`'s edits and of Settings' changes (if any), and wait for them
/// before closing.
fn save_to_close(app: &mut LodgeApp, unsaved: &[i64]) {
    let metadata: Vec<(i64, crate::content::Metadata)> = (unsaved.iter())
        .filter_map(|&id| Some((id, app.details.form_of(id)?.to_metadata().0)))
        .collect();
    let errors_before = app.notices.errors_so_far();
    for (id, metadata) in metadata {
        app.send(Command::SetMetadata {
            id,
            metadata: Box::new(metadata),
            then_deposit: None,
        });
    }
    let settings = match settings_not_saved(app) {
        true => app.settings.take_to_save(),
        false => None,
    };
    if let Some(s) = &settings {
        app.send(Command::SaveSettings(s.clone()));
    }
    app.dialogs.save_to_close_failed = false;
    app.dialogs.saving_to_close = Some(SavingToClose {
        settings,
        errors_before,
    });
}

/// What the close dialog says closing now would cut short.
pub fn close_question(work: WorkInHand) -> String {
    let mut parts = Vec::new();
    if work.sending > 0 {
        let (is, it, goes, key) = match work.sending {
            1 => ("is", "it", "it goes", "key"),
            _ => ("are", "them", "they go", "keys"),
        };
        parts.push(format!(
            "{} {is} being sent. Closing stops {it}; {goes} back on the queue and {is} sent \
             again with the same {key} (never twice) when Lodge opens next, or by `lodge \
             deposit`.",
            count_of(work.sending as u64, "deposit", "deposits")
        ));
    }
    if work.hashing > 0 {
        let is = if work.hashing == 1 { "is" } else { "are" };
        parts.push(format!(
            "{} {is} being hashed. Closing stops that: a folder being added is not on the \
             list until it is added again.",
            count_of(work.hashing as u64, "folder", "folders")
        ));
    }
    if work.waiting > 0 {
        let (wait, them, they, key) = match work.waiting {
            1 => ("waits", "it", "it is", "key"),
            _ => ("wait", "them", "they are", "keys"),
        };
        let retrying = match (work.waiting, work.retrying) {
            (_, 0) => String::new(),
            (1, _) => " to be tried again after a failed attempt".to_string(),
            (n, r) if n == r => ", all to be tried again after a failed attempt".to_string(),
            (_, r) => format!(" ({r} to be tried again after a failed attempt)"),
        };
        parts.push(format!(
            "{} {wait} on the queue{retrying}. Closing leaves {them} there unsent: {they} \
             sent with the same {key} (never twice) when Lodge opens next, or by `lodge \
             deposit`.",
            count_of(work.waiting as u64, "deposit", "deposits")
        ));
    }
    parts.join("\n\n")
}

fn show_close(app: &mut LodgeApp, ctx: &egui::Context) {
    let work = app.model.work_in_hand();
    let unsaved = unsaved_names(app);
    let settings = settings_not_saved(app);
    let saved = match &app.dialogs.saving_to_close {
        None => false,
        Some(saving) if app.notices.errors_so_far() > saving.errors_before => {
            // The error notice says why; the dialog says what is still not saved.
            app.dialogs.saving_to_close = None;
            app.dialogs.save_to_close_failed = true;
            false
        }
        Some(saving) => {
            unsaved.is_empty()
                && !settings
                && (saving.settings.as_ref()).is_none_or(|s| *s == app.model.settings)
        }
    };
    // What held the close back is done, or saved as asked: close, as the person asked.
    if saved || (work.is_empty() && unsaved.is_empty() && !settings) {
        app.dialogs.confirm_close = false;
        app.dialogs.saving_to_close = None;
        app.dialogs.close_allowed = true;
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        return;
    }
    let unsaved_ids = (app.details).edits_not_stored(|id| app.model.row(id).map(|r| &r.metadata));
    let cannot_save = cannot_save_to_close(app, &unsaved_ids);
    let saving = app.dialogs.saving_to_close.is_some();
    let save_failed = app.dialogs.save_to_close_failed;
    let mut save = false;
    let mut keep_open = false;
    let mut tallest = app.dialogs.close_text_height;
    confirmation("confirm_close", ctx).show(ctx, |ui| {
        // One width, so rewrapped text does not move the buttons sideways either.
        ui.set_width(440.0);
        ui.heading("Close Lodge?");
        steady_text(ui, &mut tallest, |ui| {
            if !unsaved.is_empty() {
                ui.label(unsaved_question(&unsaved));
            }
            if settings {
                ui.label(SETTINGS_QUESTION);
            }
            if !work.is_empty() {
                ui.label(close_question(work));
            }
            if save_failed {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    "Not everything could be saved: the notice at the window's foot says why. \
                     What is named above is still not saved.",
                );
            }
            // Why Save and close is greyed, said where a keyboard's user reads it too.
            if let Some(why) = &cannot_save
                && (!unsaved.is_empty() || settings)
            {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("Save and close cannot save yet: {why}."),
                );
            }
        });
        // Ids of their own, as the remove dialog's (the text above is measured, then
        // scrolls): Keep Lodge open keeps its focus from frame to frame.
        ui.push_id("close_buttons", |ui| {
            ui.horizontal(|ui| {
                let keep = ui.button("Keep Lodge open");
                give_the_keyboard(&keep, &mut app.dialogs.close_keep_asked);
                if keep.clicked() {
                    keep_open = true;
                }
                let something_to_save = !unsaved.is_empty() || settings;
                if something_to_save {
                    let label = if saving {
                        "Saving…"
                    } else {
                        "Save and close"
                    };
                    save = ui
                        .add_enabled(cannot_save.is_none() && !saving, egui::Button::new(label))
                        .on_hover_text(
                            "Save the edits and Settings' changes named above, then close (what is \
                         being sent or waits on the queue stays there, as with Close without \
                         saving)",
                        )
                        .on_disabled_hover_text(cannot_save.clone().unwrap_or_default())
                        .clicked();
                }
                let close = if something_to_save {
                    "Close without saving"
                } else {
                    "Close anyway"
                };
                if ui.button(close).clicked() {
                    app.dialogs.close_allowed = true;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            })
        });
    });
    app.dialogs.close_text_height = tallest;
    if save {
        save_to_close(app, &unsaved_ids);
    }
    if keep_open || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        app.dialogs.confirm_close = false;
        // A save sent goes on, but no longer closes the window when it lands.
        app.dialogs.saving_to_close = None;
        app.dialogs.save_to_close_failed = false;
    }
}

/// Whether removing its dataset ends `job` rejected: it waits on the queue, and a worker
/// that reaches it finds the dataset no longer listed.
fn waits_to_end_rejected(job: &JobRow) -> bool {
    !job.state.is_terminal() && !is_being_sent(job)
}

/// What removing its dataset does to its deposit `job` on the target named `target` (as
/// the window names it elsewhere; with the key, for a deposit of an `earlier` key than the
/// dataset's): one being sent lands, one waiting ends rejected (one of an earlier key does,
/// removed or not), one that landed keeps its record.
fn deposit_fate(target: &str, job: &JobRow, earlier: bool) -> String {
    use crate::store::JobState;
    let record = job
        .identifier
        .as_deref()
        .map(crate::wording::short_identifier);
    let target = match earlier {
        true => format!("{target}, earlier key {}", job.key.short()),
        false => target.to_string(),
    };
    if is_being_sent(job) {
        return format!("{target}: being sent now; it lands as the folder was scanned.");
    }
    if waits_to_end_rejected(job) && earlier {
        return format!(
            "{target}: waits on the queue; it ends rejected when reached, removed or not: the \
             dataset changed since it was queued."
        );
    }
    if waits_to_end_rejected(job) {
        return format!(
            "{target}: waits on the queue; once removed, it ends rejected when reached. Add \
             the folder again to send it."
        );
    }
    match (job.state, record) {
        (JobState::Deposited | JobState::Existing, Some(record)) => {
            format!("{target}: deposited as {record}; the record stays.")
        }
        (JobState::Deposited | JobState::Existing, None) => {
            format!("{target}: deposited; the record stays.")
        }
        (JobState::Failed, _) => format!("{target}: failed; it stays in the history."),
        _ => format!("{target}: refused; it stays in the history."),
    }
}

/// Ask first, once the dataset's jobs are read: the question lists every one of them that
/// removing touches, not only each target's latest, which the row knows.
pub fn ask_remove(app: &mut LodgeApp, id: i64) {
    let Some(row) = app.model.row(id) else { return };
    if row.id < 0 {
        return;
    }
    // Asked first even with no deposit: Delete is one key away from the one that was
    // meant, and the row's metadata comes back only with its folder added again.
    app.dialogs.confirm_remove = Some(id);
    app.send(Command::LoadDatasetJobs { id });
}

pub fn show(app: &mut LodgeApp, ctx: &egui::Context) {
    if app.dialogs.confirm_close {
        show_close(app, ctx);
    }
    // A dialog opened anew starts from its own height, and gives its safe button the
    // keyboard again.
    if !app.dialogs.confirm_close {
        app.dialogs.close_text_height = 0.0;
        app.dialogs.close_keep_asked = 0;
    }
    let Some(id) = app.dialogs.confirm_remove else {
        app.dialogs.remove_text_height = 0.0;
        app.dialogs.remove_cancel_asked = 0;
        return;
    };
    let Some(row) = app.model.row(id) else {
        app.dialogs.confirm_remove = None;
        return;
    };
    let name = row.name.clone();
    // Opened whole, once the dataset's jobs are read (a moment): a list that grew under the
    // buttons would move them.
    let Some(deposits) = app.model.removal_deposits(id) else {
        return;
    };
    // Each deposit's target as the window names it elsewhere: by its name in the picker,
    // else (a URL given on the command line, a target since removed) by its address.
    let fates: Vec<(String, bool)> = (deposits.jobs.iter())
        .map(|job| {
            let target = match app.model.targets.iter().find(|t| t.scope_id == job.target) {
                Some(t) => t.label.split(" — ").next().unwrap_or("").to_string(),
                None => format!("{} (not in the target picker)", job.target),
            };
            let earlier = row.key.is_some_and(|key| key != job.key);
            (
                deposit_fate(&target, job, earlier),
                waits_to_end_rejected(job),
            )
        })
        .collect();
    let unread = deposits.unread.map(|why| {
        format!(
            "Its other deposits could not be read ({why}): only each target's latest is \
             listed. `lodge show {id}` lists them all."
        )
    });
    let mut close = false;
    let mut opened_at = app.dialogs.remove_text_height;
    confirmation("confirm_remove", ctx).show(ctx, |ui| {
        ui.set_width(420.0);
        ui.heading(format!("Remove {name}?"));
        fixed_text(ui, &mut opened_at, |ui| {
            if fates.is_empty() && unread.is_none() {
                ui.label(
                    "It was never deposited. Only the row and its scan are removed: adding \
                     the folder again brings its metadata back as it is now.",
                );
                return;
            }
            ui.label(format!(
                "Its {}, and what removing it does to each:",
                match fates.len() {
                    1 => "deposit",
                    _ => "deposits",
                }
            ));
            for (fate, warn) in &fates {
                match warn {
                    true => ui.colored_label(ui.visuals().warn_fg_color, format!("• {fate}")),
                    false => ui.label(format!("• {fate}")),
                };
            }
            if let Some(unread) = &unread {
                ui.colored_label(ui.visuals().warn_fg_color, unread);
            }
            ui.label(
                "The history and the records in the repositories stay; only the row and its \
                 scan are removed. Adding the folder again lists it anew and takes up its \
                 metadata as it is now: with the same files (the same key), a deposit of it is replayed, \
                 never duplicated.",
            );
        });
        // Ids of their own: the text above is measured in its first frame and scrolls in
        // the next, which would number the buttons anew and drop Cancel's focus.
        ui.push_id("remove_buttons", |ui| ui.horizontal(|ui| {
            if ui.button("Remove").clicked() {
                // Asked and answered: its edits not saved go with it, with no word after.
                app.details.forget(id);
                app.send(Command::Remove { id });
                close = true;
            }
            let cancel = ui.button("Cancel");
            give_the_keyboard(&cancel, &mut app.dialogs.remove_cancel_asked);
            if cancel.clicked() {
                close = true;
            }
        }));
    });
    app.dialogs.remove_text_height = opened_at;
    if close || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        app.dialogs.confirm_remove = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_close_question_names_what_closing_cuts_short_in_number() {
        let one = close_question(WorkInHand {
            sending: 1,
            ..WorkInHand::default()
        });
        assert!(
            one.starts_with("1 deposit is being sent. Closing stops it; it goes back on the queue"),
            "{one}"
        );
        let both = close_question(WorkInHand {
            sending: 3,
            hashing: 2,
            ..WorkInHand::default()
        });
        assert!(
            both.contains(
                "3 deposits are being sent. Closing stops them; they go back on the queue and \
                 are sent again with the same keys"
            ),
            "{both}"
        );
        assert!(
            both.contains("2 folders are being hashed. Closing stops that"),
            "{both}"
        );
        let waiting = close_question(WorkInHand {
            waiting: 1,
            retrying: 1,
            ..WorkInHand::default()
        });
        assert_eq!(
            waiting,
            "1 deposit waits on the queue to be tried again after a failed attempt. Closing \
             leaves it there unsent: it is sent with the same key (never twice) when Lodge \
             opens next, or by `lodge deposit`."
        );
        let some = close_question(WorkInHand {
            waiting: 4,
            retrying: 1,
            ..WorkInHand::default()
        });
        assert!(
            some.starts_with(
                "4 deposits wait on the queue (1 to be tried again after a failed attempt). \
                 Closing leaves them there unsent: they are sent with the same keys"
            ),
            "{some}"
        );
    }
}
