//! Keyboard shortcuts: Ctrl+O add a folder, Ctrl+F search, Ctrl+R retry the selected
//! dataset, Delete remove it (with confirmation when it has history).

use egui::{Key, KeyboardShortcut, Modifiers};

use super::{LodgeApp, View, dialogs};
use crate::app::Command;

pub const ADD: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
pub const SEARCH: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);
pub const RETRY: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::R);

pub fn handle(app: &mut LodgeApp, ctx: &egui::Context) {
    if !app.model.ready {
        return;
    }
    if ctx.input_mut(|i| i.consume_shortcut(&ADD)) {
        app.send(Command::PickFolder);
    }
    if ctx.input_mut(|i| i.consume_shortcut(&SEARCH)) {
        app.view = View::Datasets;
        app.table.focus_search = true;
    }
    if ctx.input_mut(|i| i.consume_shortcut(&RETRY))
        && let Some(id) = app.selected
        && let Some(row) = app.model.row(id)
    {
        let jobs: Vec<i64> = row
            .current_job(app.target_id())
            .filter(|j| j.state == crate::store::JobState::Failed)
            .map(|j| j.id)
            .into_iter()
            .collect();
        if !jobs.is_empty() {
            app.send(Command::Retry { jobs });
        }
    }
    // Delete only when no text field is being typed in.
    if !ctx.egui_wants_keyboard_input()
        && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Delete))
        && let Some(id) = app.selected
    {
        dialogs::ask_remove(app, id);
    }
}
