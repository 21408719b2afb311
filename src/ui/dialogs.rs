//! Confirmation dialogs: removing a dataset that has deposit history.

use super::LodgeApp;
use crate::app::Command;
use crate::wording::count_of;

#[derive(Default)]
pub struct Dialogs {
    /// A dataset waiting for the person to confirm its removal.
    pub confirm_remove: Option<i64>,
}

/// Remove at once when the dataset has no history; otherwise ask first.
pub fn ask_remove(app: &mut LodgeApp, id: i64) {
    let Some(row) = app.model.row(id) else { return };
    if row.id < 0 {
        return;
    }
    if row.jobs.is_empty() {
        app.send(Command::Remove { id });
    } else {
        app.dialogs.confirm_remove = Some(id);
    }
}

pub fn show(app: &mut LodgeApp, ctx: &egui::Context) {
    let Some(id) = app.dialogs.confirm_remove else {
        return;
    };
    let Some(row) = app.model.row(id) else {
        app.dialogs.confirm_remove = None;
        return;
    };
    let name = row.name.clone();
    let deposits = row.jobs.len();
    let mut close = false;
    egui::Modal::new(egui::Id::unique("confirm_remove")).show(ctx, |ui| {
        ui.set_max_width(420.0);
        ui.heading(format!("Remove {name}?"));
        ui.label(format!(
            "It has deposit history on {}. The history and the records in \
             the repository stay; only the row and its scan are removed. Adding the folder \
             again brings it back, and depositing it again is still replayed, never duplicated.",
            count_of(deposits as u64, "target", "targets")
        ));
        ui.horizontal(|ui| {
            if ui.button("Remove").clicked() {
                app.send(Command::Remove { id });
                close = true;
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
    });
    if close || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        app.dialogs.confirm_remove = None;
    }
}
