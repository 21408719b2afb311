//! The top bar: view switch, target picker, Add folder, Deposit all ready, Retry all failed,
//! Pause/Resume and Settings.

use super::{LodgeApp, View};
use crate::app::{Command, Notice, Update};

pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) {
    egui::Panel::top("top_bar").show(ui, |ui| {
        ui.add_space(4.0);
        ui.horizontal_wrapped(|ui| {
            ui.heading("Lodge");
            ui.separator();
            ui.selectable_value(&mut app.view, View::Datasets, "Datasets");
            if ui
                .selectable_value(&mut app.view, View::History, "History")
                .clicked()
            {
                app.send(Command::LoadHistory);
            }
            ui.separator();
            target_picker(app, ui);
            ui.separator();
            let ready = app.model.ready;
            if ui
                .add_enabled(ready, egui::Button::new("Add folder…"))
                .on_hover_text(
                    "Add dataset folders, one or more (Ctrl+O), or drop folders on the \
                     window, or paste their paths (Ctrl+V)",
                )
                .clicked()
            {
                app.send(Command::PickFolder);
            }
            let ready_ids = app.table.ready_ids.clone();
            // Those whose details hold edits not saved are left out (named when pressed):
            // the count is of what a press sends.
            let held = held_back_by_edits(app, &ready_ids).len();
            let sent = ready_ids.len() - held;
            if ui
                .add_enabled(
                    sent > 0,
                    egui::Button::new(format!("Deposit all ready ({sent})")),
                )
                .on_disabled_hover_text(match held {
                    0 => "No dataset is ready: a new one with complete metadata, or a new \
                          version of a deposited one"
                        .to_string(),
                    n => format!(
                        "{} ready but {} edits not saved in {} details: save or undo them first",
                        crate::wording::count_of(n as u64, "dataset is", "datasets are"),
                        if n == 1 { "has" } else { "have" },
                        if n == 1 { "its" } else { "their" },
                    ),
                })
                .on_hover_text(match app.table.ready_hidden {
                    0 => "Deposit every new dataset, or new version of a deposited one, whose \
                          metadata is complete, as saved (one with edits not saved is left \
                          out until they are saved or undone)"
                        .to_string(),
                    n => format!(
                        "Deposit every new dataset, or new version of a deposited one, whose \
                         metadata is complete, as saved (one with edits not saved is left out \
                         until they are saved or undone), including {n} the search or the \
                         status filter hides"
                    ),
                })
                .clicked()
            {
                deposit_all_ready(app, ready_ids);
            }
            let failed = app.table.failed_count;
            // Of the picked target, as the table's statuses are: say so, since the History
            // lists every target's.
            let picked = app
                .model
                .targets
                .get(app.target)
                .map(|t| t.label.split(" — ").next().unwrap_or(&t.label).to_string())
                .unwrap_or_default();
            let others = "failed deposits to other targets: pick their target, or use Retry \
                          in the History";
            if ui
                .add_enabled(
                    failed > 0,
                    egui::Button::new(format!("Retry all failed ({failed})")),
                )
                .on_hover_text(format!(
                    "Re-queue every failed deposit to {picked} with the same key ({others})"
                ))
                .on_disabled_hover_text(format!("No failed deposit to {picked} ({others})"))
                .clicked()
            {
                let target = app.target_id().to_string();
                // A dataset whose details hold edits not saved is left out (and named): a
                // retry sends what is saved, which the edits would then make a new version of.
                let edits = app.details.unsaved_edits();
                let leave_out = (edits.iter())
                    .filter(|(id, (metadata, _))| {
                        app.model.row(**id).is_some_and(|e| *metadata != e.metadata)
                    })
                    .map(|(id, _)| *id)
                    .collect();
                app.send(Command::RetryAllFailed { target, leave_out });
            }
            if app.model.engine_running {
                if ui
                    .button("⏸ Pause")
                    .on_hover_text(
                        "Stop depositing: deposits under way stop and go back on the queue, \
                         and Resume sends them (a record that landed is not sent twice)",
                    )
                    .clicked()
                {
                    app.send(Command::Pause);
                }
            } else if ui
                .add_enabled(ready, egui::Button::new("▶ Resume"))
                .on_hover_text("Start depositing queued datasets again")
                .clicked()
            {
                app.send(Command::Resume);
            }
            // Pressed again, it closes Settings as their ✖ does (it opened them anew over
            // what was typed).
            if ui.button("Settings").clicked() {
                match app.settings.is_open() {
                    true => app.settings.close(&app.model.settings),
                    false => {
                        app.settings.open(&app.model.settings);
                        app.model.forget_finished_target_tests();
                    }
                }
            }
        });
        ui.add_space(4.0);
    });
}

fn target_picker(app: &mut LodgeApp, ui: &mut egui::Ui) {
    let l = ui.label("Target:");
    let current = app
        .model
        .targets
        .get(app.target)
        .map(|t| t.label.clone())
        .unwrap_or_else(|| "opening…".into());
    // One width whatever is picked: a DataCite target's URL, query and all, would push the
    // buttons after it onto a second row. Its whole label is in the hover and the list.
    const WIDTH: f32 = 420.0;
    let height = ui.spacing().interact_size.y;
    ui.allocate_ui(egui::vec2(WIDTH, height), |ui| {
        egui::ComboBox::from_id_salt("target_picker")
            .selected_text(current.clone())
            .width(WIDTH)
            .truncate()
            .show_ui(ui, |ui| {
                for (i, t) in app.model.targets.iter().enumerate() {
                    super::pick(ui, &mut app.target, i, &t.label);
                }
            })
            .response
            .on_hover_text(current)
            .labelled_by(l.id);
    });
}

/// Deposit every dataset of `ids` on the chosen target, as saved, in one command. A dataset
/// whose details hold edits not saved (shown, or left as a draft by selecting another row,
/// so out of sight) is left out, with a notice naming it: a batch never sends what the
/// person has not saved, and sending it as saved would make a record the edits then
/// replace with a new version.
/// Of the datasets `ids`, those whose details hold edits not saved (shown, or left as a
/// draft): Deposit all ready sends what is saved, so it leaves them out.
fn held_back_by_edits(app: &LodgeApp, ids: &[i64]) -> Vec<i64> {
    let edits = app.details.unsaved_edits();
    if edits.is_empty() {
        return Vec::new();
    }
    (ids.iter().copied())
        .filter(|id| {
            let stored = app.model.row(*id).map(|r| &r.metadata);
            edits
                .get(id)
                .is_some_and(|(metadata, _)| Some(metadata) != stored)
        })
        .collect()
}

fn deposit_all_ready(app: &mut LodgeApp, ids: Vec<i64>) {
    let target = app.target_id().to_string();
    let held_ids = held_back_by_edits(app, &ids);
    let (mut sent, mut held) = (Vec::new(), Vec::new());
    for id in ids {
        let Some(entry) = app.model.row(id) else {
            continue;
        };
        match held_ids.contains(&id) {
            true => held.push(entry.name.clone()),
            false => sent.push(id),
        }
    }
    if !sent.is_empty() {
        app.send(Command::Deposit { ids: sent, target });
    }
    if !held.is_empty() {
        let (its, them, it) = match held.len() {
            1 => ("its details hold", "them", "it"),
            _ => ("their details hold", "them", "each"),
        };
        app.model.apply(Update::Notice(Notice::warning(format!(
            "Not deposited: {} — {its} edits not saved. Save {them} (or Undo), then deposit \
             {it}: Deposit all ready sends only what is saved.",
            held.join(", ")
        ))));
    }
}
