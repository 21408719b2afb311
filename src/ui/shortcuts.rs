//! Keyboard shortcuts: Ctrl+O add a folder, Ctrl+F search (the view's own), Ctrl+R retry
//! the selected dataset, Ctrl+S save its metadata edits (in the details), Delete remove it
//! (asking first), Up and Down move the selection through the table, Escape closes the
//! details. All but the Ctrl ones wait while a text field is typed in or a drop-down list
//! is open; a focused button does not stop them. Up and Down scroll the log instead while
//! its lines have the focus.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::{LodgeApp, View, dialogs, log_panel};
use crate::app::Command;

pub const ADD: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
pub const SEARCH: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);
pub const RETRY: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::R);
/// Save the details' metadata edits (handled by the details, which hold them).
pub const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);

pub fn handle(app: &mut LodgeApp, ctx: &egui::Context) {
    if !app.model.ready {
        return;
    }
    if ctx.input_mut(|i| i.consume_shortcut(&ADD)) {
        app.send(Command::PickFolder);
    }
    // The search of the view shown: the History has its own.
    if ctx.input_mut(|i| i.consume_shortcut(&SEARCH)) {
        match app.view {
            View::Datasets => app.table.focus_search = true,
            View::History => app.history.focus_search = true,
        }
    }
    if ctx.input_mut(|i| i.consume_shortcut(&RETRY))
        && let Some(id) = app.selected
        && let Some(row) = app.model.row(id)
    {
        let jobs: Vec<i64> = (app.model)
            .deposit_job(row, app.target_id())
            .filter(|j| j.state == crate::store::JobState::Failed)
            .map(|j| j.id)
            .into_iter()
            .collect();
        if !jobs.is_empty() {
            app.send(Command::Retry { jobs });
        }
    }
    // The keys below only when no text field is being typed in (there they move the
    // cursor, or Escape leaves the field), no drop-down list is open (its arrows pick in
    // it) and no dialog or Settings asks for them. A button with the keyboard's focus
    // leaves them be: Up and Down still move through the datasets, as the README says.
    let free = !typing_text(ctx)
        && app.dialogs.confirm_remove.is_none()
        && !app.dialogs.confirm_close
        && !app.settings.is_open();
    if free && app.view == View::Datasets {
        // The log's lines, when focused, scroll by these keys instead.
        let arrows = !log_panel::lines_focused(ctx);
        let down = arrows && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::ArrowDown));
        let up = arrows && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::ArrowUp));
        if down || up {
            // Not both: egui would also move the focus to the widget above or below.
            ctx.memory_mut(|m| m.move_focus(egui::FocusDirection::None));
            move_selection(app, if down { 1 } else { -1 });
        }
        if app.selected.is_some()
            && !app.typing
            && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape))
        {
            app.select(None);
        }
    }
    // Delete only when no text field is being typed in, and no dialog is open.
    if !typing_text(ctx)
        && !app.dialogs.confirm_close
        && app.dialogs.confirm_remove.is_none()
        && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Delete))
        && let Some(id) = app.selected
    {
        dialogs::ask_remove(app, id);
    }
    // The remove question waits for the dataset's deposits to be read (a moment): an Enter
    // or a Tab typed meanwhile is not for the widget under it (a row's Deposit, say).
    if let Some(id) = app.dialogs.confirm_remove
        && app.model.removal_deposits(id).is_none()
    {
        ctx.memory_mut(|m| {
            if let Some(focused) = m.focused() {
                m.surrender_focus(focused);
            }
            m.move_focus(egui::FocusDirection::None);
        });
        ctx.input_mut(|i| {
            i.consume_key(Modifiers::NONE, Key::Enter);
            i.consume_key(Modifiers::NONE, Key::Space);
        });
    }
}

/// Whether the keys go to a text field being typed in, or to a drop-down list that is open.
pub fn typing_text(ctx: &egui::Context) -> bool {
    ctx.text_edit_focused() || egui::Popup::is_any_open(ctx)
}

/// Select the row `step` rows below (or above) the selected one in the table's order, the
/// first (or last) when none is selected, and have the table scroll to it.
fn move_selection(app: &mut LodgeApp, step: isize) {
    let order = &app.table.order;
    if order.is_empty() {
        return;
    }
    let last = order.len() as isize - 1;
    let at = app
        .selected
        .and_then(|id| order.iter().position(|&r| r == id))
        .map(|i| (i as isize + step).clamp(0, last))
        .unwrap_or(if step > 0 { 0 } else { last }) as usize;
    let id = order[at];
    app.table.scroll_to = Some(at);
    app.select(Some(id));
}
