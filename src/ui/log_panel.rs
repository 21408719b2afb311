//! The live log (bottom panel): every event as it happens, filtered by level and dataset,
//! following new lines until the person scrolls up, with a Copy button. Its lines take the
//! keyboard's focus (Tab, or a click on them): then Up and Down scroll a line, Page Up and
//! Page Down a page, Home and End to the first and the newest line.

use egui::{Color32, Key, Modifiers, RichText};

use super::LodgeApp;
use crate::app::{LogLevel, LogLine};
use crate::wording::count_of;

const LINE_HEIGHT: f32 = 18.0;

#[derive(Default)]
pub struct LogState {
    pub min_level: Option<LogLevel>,
    pub only_selected: bool,
    /// Indexes into the model's log that pass the filters, and what they were built for.
    shown: Vec<usize>,
    built_for: Option<(u64, Option<LogLevel>, Option<i64>, usize)>,
    /// Where the lines were scrolled to in the last frame, and how far they can go: what a
    /// key scrolls from.
    offset: f32,
    max_offset: f32,
    page: f32,
    /// The lines last copied, and when (egui's clock): said beside the count for a moment.
    copied: Option<(usize, f64)>,
}

/// The lines' place in the keyboard's focus order.
pub fn lines_id() -> egui::Id {
    egui::Id::unique("log_lines")
}

/// Whether the log's lines have the keyboard's focus (its keys are theirs then).
pub fn lines_focused(ctx: &egui::Context) -> bool {
    ctx.memory(|m| m.has_focus(lines_id()))
}

/// Where a key pressed in the focused lines scrolls them to, if it is one of theirs.
fn scrolled_by_keys(ui: &egui::Ui, state: &LogState) -> Option<f32> {
    let line = LINE_HEIGHT + ui.spacing().item_spacing.y;
    let page = (state.page - line).max(line);
    let mut offset = None;
    ui.input_mut(|i| {
        for (key, to) in [
            (Key::ArrowUp, state.offset - line),
            (Key::ArrowDown, state.offset + line),
            (Key::PageUp, state.offset - page),
            (Key::PageDown, state.offset + page),
            (Key::Home, 0.0),
            (Key::End, state.max_offset),
        ] {
            if i.consume_key(Modifiers::NONE, key) {
                offset = Some(to.clamp(0.0, state.max_offset));
            }
        }
    });
    offset
}

fn passes(line: &LogLine, min: Option<LogLevel>, dataset: Option<i64>) -> bool {
    min.is_none_or(|m| line.level >= m) && dataset.is_none_or(|d| line.dataset == Some(d))
}

/// The most of a dataset's name a line shows: a long one would push the event's words off
/// the line (a line is cut at the panel's edge; its hover shows it whole).
const NAME_SHOWN: usize = 40;

/// One line as the panel shows it: the time of day, and a long name shortened.
pub fn line_text(app: &LodgeApp, line: &LogLine) -> String {
    line_as(app, line, app.clock.time(line.at), Some(NAME_SHOWN))
}

/// One line as Copy puts it on the clipboard: its date and time in full (read later, on
/// another day), and the name whole.
pub fn copied_line(app: &LodgeApp, line: &LogLine) -> String {
    line_as(app, line, app.clock.stamp(line.at), None)
}

fn line_as(app: &LodgeApp, line: &LogLine, at: String, name_up_to: Option<usize>) -> String {
    let dataset = line
        .dataset
        .map(|d| app.model.dataset_name(d).unwrap_or_else(|| format!("#{d}")))
        .map(|n| match name_up_to {
            Some(most) if n.chars().count() > most => {
                format!("{}…: ", n.chars().take(most - 1).collect::<String>())
            }
            _ => format!("{n}: "),
        })
        .unwrap_or_default();
    format!(
        "{at} {:7} {:15} {dataset}{}",
        line.level.label(),
        line.kind,
        line.text
    )
}

/// Draw the panel; returns the height it takes at the window's foot, which the notices sit
/// above so they never cover the newest lines.
pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) -> f32 {
    let panel = egui::Panel::bottom("log_panel")
        .resizable(true)
        .default_size(170.0)
        .min_size(80.0)
        .show(ui, |ui| {
            ui.add_space(2.0);
            let dataset = if app.log.only_selected {
                app.selected
            } else {
                None
            };
            filters(app, ui);
            let stamp = (
                app.model.log_version,
                app.log.min_level,
                dataset,
                app.model.log.len(),
            );
            if app.log.built_for != Some(stamp) {
                app.log.shown = app
                    .model
                    .log
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| passes(l, app.log.min_level, dataset))
                    .map(|(i, _)| i)
                    .collect();
                app.log.built_for = Some(stamp);
            }
            ui.separator();
            let keyed = match lines_focused(ui.ctx()) {
                true => scrolled_by_keys(ui, &app.log),
                false => None,
            };
            // A key's scroll would be undone by sticking to the newest line (End sticks
            // again, being there).
            let mut area = egui::ScrollArea::vertical()
                .id_salt("log_scroll")
                .auto_shrink(false)
                .stick_to_bottom(keyed.is_none());
            if let Some(offset) = keyed {
                area = area.vertical_scroll_offset(offset);
            }
            let shown = area.show_rows(ui, LINE_HEIGHT, app.log.shown.len(), |ui, range| {
                for &i in &app.log.shown[range] {
                    let line = &app.model.log[i];
                    let colour = match line.level {
                        LogLevel::Info => ui.visuals().text_color(),
                        LogLevel::Warning => Color32::from_rgb(0xd0, 0x8a, 0x10),
                        LogLevel::Error => Color32::from_rgb(0xd6, 0x3c, 0x3c),
                    };
                    ui.add(
                        egui::Label::new(
                            RichText::new(line_text(app, line))
                                .monospace()
                                .color(colour),
                        )
                        .truncate(),
                    );
                }
            });
            app.log.offset = shown.state.clamped_offset().y;
            app.log.page = shown.inner_rect.height();
            app.log.max_offset = (shown.content_size.y - app.log.page).max(0.0);
            focusable_lines(ui, shown.inner_rect);
        });
    (ui.ctx().content_rect().bottom() - panel.response.rect.top()).max(0.0)
}

/// The lines as one widget the keyboard can focus (Tab reaches it; so does a click on them),
/// with a ring while it has the focus.
fn focusable_lines(ui: &mut egui::Ui, rect: egui::Rect) {
    let lines = ui.interact(rect, lines_id(), egui::Sense::FOCUSABLE);
    lines.widget_info(|| {
        egui::WidgetInfo::labeled(
            egui::Role::Log,
            true,
            "Log lines (Up, Down, Page Up, Page Down, Home, End scroll them)",
        )
    });
    if ui.input(|i| i.pointer.primary_pressed()) && lines.contains_pointer() {
        lines.request_focus();
    }
    if lines.has_focus() {
        // Up and Down are the lines' own, not egui's moves of the focus to a neighbour.
        ui.memory_mut(|m| {
            m.set_focus_lock_filter(
                lines.id,
                egui::EventFilter {
                    vertical_arrows: true,
                    ..Default::default()
                },
            )
        });
        let stroke = ui.visuals().selection.stroke;
        ui.painter()
            .rect_stroke(rect, 2.0, stroke, egui::StrokeKind::Inside);
    }
}

fn filters(app: &mut LodgeApp, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong("Log");
        let l = ui.label("Level:");
        egui::ComboBox::from_id_salt("log_level")
            .selected_text(match app.log.min_level {
                None => "All",
                Some(LogLevel::Info) => "All",
                Some(LogLevel::Warning) => "Warnings and errors",
                Some(LogLevel::Error) => "Errors",
            })
            .show_ui(ui, |ui| {
                super::pick(ui, &mut app.log.min_level, None, "All");
                super::pick(
                    ui,
                    &mut app.log.min_level,
                    Some(LogLevel::Warning),
                    "Warnings and errors",
                );
                super::pick(ui, &mut app.log.min_level, Some(LogLevel::Error), "Errors");
            })
            .response
            .labelled_by(l.id);
        ui.add_enabled_ui(app.selected.is_some(), |ui| {
            ui.checkbox(&mut app.log.only_selected, "Selected dataset only");
        });
        if ui
            .button("Copy")
            .on_hover_text(
                "Copy the lines shown to the clipboard, each with its date and time (UTC)",
            )
            .clicked()
        {
            let text: Vec<String> = app
                .log
                .shown
                .iter()
                .map(|&i| copied_line(app, &app.model.log[i]))
                .collect();
            ui.ctx().copy_text(text.join("\n"));
            app.log.copied = Some((app.log.shown.len(), ui.input(|i| i.time)));
        }
        let lines = count_of(app.log.shown.len() as u64, "line", "lines");
        // Said for a moment: a clipboard shows nothing of itself.
        let now = ui.input(|i| i.time);
        match app.log.copied.filter(|(_, at)| now - at < COPIED_SHOWN) {
            Some((n, at)) => {
                ui.weak(format!("{} copied", count_of(n as u64, "line", "lines")));
                ui.ctx()
                    .request_repaint_after_secs((COPIED_SHOWN - (now - at)) as f32);
            }
            None => {
                ui.weak(lines);
            }
        }
        if app.model.earlier_events {
            ui.weak("· earlier events: `lodge log --all`")
                .on_hover_text(
                    "The window loads the newest few hundred events of the log when it opens. \
                 Every one is kept: `lodge log --all` prints them (`--dataset` or `--job` \
                 narrows it), and each deposit's own are in its details.",
                );
        }
    });
}

/// How long "N lines copied" stands in for the count, in seconds.
const COPIED_SHOWN: f64 = 2.0;
