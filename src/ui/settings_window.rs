//! Settings: the defaults new datasets get (your name, affiliation, license, publisher, a
//! title with the folder's name, the year added), saved to a
//! JSON file in the platform config directory by the service, never to the store; and the
//! named targets ([`super::targets_section`]).

use super::LodgeApp;
use super::targets_section::{self, TargetsSection};
use crate::app::{Command, Settings};
use crate::settings::OtherAffiliation;

#[derive(Default)]
pub struct SettingsWindow {
    /// The settings being edited while the window is open.
    editing: Option<Settings>,
    /// Closed (✖) with changes not saved: the window stays, asking to save or discard them.
    closing_with_changes: bool,
    /// Frames the first field has asked for the keyboard since they opened (Tab would
    /// otherwise walk the window behind them first): see `dialogs::give_the_keyboard`.
    first_field_asked: u8,
    pub targets: TargetsSection,
}

impl SettingsWindow {
    pub fn open(&mut self, current: &Settings) {
        self.editing = Some(current.clone());
        self.closing_with_changes = false;
        self.first_field_asked = 0;
    }

    pub fn is_open(&self) -> bool {
        self.editing.is_some()
    }

    /// What is wrong with the open form's Settings, which Save settings would refuse.
    pub fn problem(&self) -> Option<String> {
        self.editing.as_ref().and_then(|s| s.problem())
    }

    /// Close the form, handing over the Settings it holds to be saved.
    pub fn take_to_save(&mut self) -> Option<Settings> {
        self.editing.take()
    }

    /// Close it as its ✖ does: at once, or, with changes to `saved` typed and not saved,
    /// not yet: it stays open, asking to save or discard them.
    pub fn close(&mut self, saved: &Settings) {
        match self.has_changes(saved) {
            true => self.closing_with_changes = true,
            false => self.editing = None,
        }
    }

    /// Whether the form holds changes to `saved` not saved yet.
    pub fn has_changes(&self, saved: &Settings) -> bool {
        self.editing.as_ref().is_some_and(|s| s != saved)
    }
}

/// The Settings window's id (its area's, among the window's layers).
pub fn window_id() -> egui::Id {
    egui::Id::unique("settings_window")
}

/// Where the Settings window is on screen, while it is open.
pub fn drawn(app: &LodgeApp, ctx: &egui::Context) -> Option<egui::Rect> {
    app.settings
        .is_open()
        .then(|| ctx.memory(|m| m.area_rect(window_id())))
        .flatten()
}

pub fn show(app: &mut LodgeApp, ctx: &egui::Context) {
    if app.settings.editing.is_none() {
        return;
    }
    // Escape closes it as its ✖ does (typed changes kept, asking), from a text field too
    // (they open with the keyboard in their first), unless it was an open list's.
    let escape = !egui::Popup::is_any_open(ctx)
        && !app.dialogs.confirm_close
        && ctx.input(|i| i.key_pressed(egui::Key::Escape));
    let mut open = true;
    let mut save = false;
    let mut fill_in = false;
    let mut discard = false;
    egui::Window::new("Settings")
        .id(window_id())
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            // Room at the foot for the notices, when they are drawn there.
            let height = ctx.content_rect().height() - 80.0 - app.notices.inside_height(ctx);
            egui::ScrollArea::vertical()
                .max_height(height.max(200.0))
                .min_scrolled_height(600.0_f32.min(height))
                .show(ui, |ui| {
            ui.set_min_width(560.0);
            let Some(editing) = app.settings.editing.as_mut() else {
                return;
            };
            ui.label("Defaults for folders you add from now on (a CITATION.cff or .zenodo.json in the folder comes first).");
            egui::Grid::new("settings_grid").num_columns(2).show(ui, |ui| {
                // A labelled box a row, wide enough for the title's hint, which says what
                // `{folder}` is.
                let row = |ui: &mut egui::Ui, label: &str, value: &mut String, hint: &str| {
                    let l = ui.label(label);
                    let field = ui
                        .add(
                            egui::TextEdit::singleline(value)
                                .hint_text(hint)
                                .desired_width(400.0),
                        )
                        .labelled_by(l.id);
                    ui.end_row();
                    field
                };
                let name = row(ui, "Your name", &mut editing.name, "Family, Given");
                super::dialogs::give_the_keyboard(&name, &mut app.settings.first_field_asked);
                // As under a creator in the details: every folder added gets this name.
                let creator = crate::content::Creator {
                    name: editing.name.clone(),
                    orcid: Some(editing.orcid.clone()),
                    ror: None,
                    affiliations: Vec::new(),
                    organisation: false,
                };
                if let Some(meant) = crate::content::as_person(&creator) {
                    ui.label("");
                    ui.horizontal_wrapped(|ui| {
                        ui.label(
                            egui::RichText::new(
                                "No comma: repositories would take your name as an \
                                 organisation's.",
                            )
                            .weak(),
                        );
                        if ui
                            .small_button(format!("Use {meant}"))
                            .on_hover_text("A person is written \"Family, Given\"")
                            .clicked()
                        {
                            editing.name = meant;
                        }
                    });
                    ui.end_row();
                }
                row(ui, "Your ORCID iD", &mut editing.orcid, "0000-0000-0000-0000");
                row(ui, "Affiliation", &mut editing.affiliation, "Institution");
                row(
                    ui,
                    "Affiliation's ROR",
                    &mut editing.affiliation_ror,
                    "https://ror.org/… (ror.org finds it)",
                );
                other_affiliations(ui, &mut editing.more_affiliations);
                row(ui, "License", &mut editing.license, "none unless given, e.g. CC-BY-4.0");
                let license = editing.license.trim();
                if !license.is_empty() && crate::content::spdx_license_id(license).is_none() {
                    ui.label("");
                    super::metadata_form::license_hint(ui, &mut editing.license, None);
                    ui.end_row();
                }
                row(ui, "Publisher", &mut editing.publisher, "Institution or repository");
                row(
                    ui,
                    "Title",
                    &mut editing.title,
                    "e.g. Soil survey {folder}: {folder} is the folder's name",
                );
                ui.label("Publication year");
                ui.checkbox(&mut editing.year_when_added, "The year the folder is added");
                ui.end_row();
            });
            ui.separator();
            ui.label("Shared database: one queue and one dedup store for your lab's machines (PostgreSQL). Empty: this computer's own file. The window uses it from its next start, `lodge` commands at once.");
            egui::Grid::new("database_grid").num_columns(2).show(ui, |ui| {
                let l = ui.label("Shared database");
                ui.add(
                    egui::TextEdit::singleline(&mut editing.database)
                        .hint_text("postgres://you@db.lab.example:5432/lodge")
                        .desired_width(400.0),
                )
                .labelled_by(l.id);
                ui.end_row();
            });
            // Given at the start, the window's database wins over this field: said, or a
            // shared database typed here would look used.
            if app.model.db_given
                && let Some(db) = &app.model.db
            {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "This window was started with --db or LODGE_DB ({}), which wins over \
                         the field above: it is used where neither is given.",
                        crate::store::StoreLocation::from(db.clone())
                    ),
                );
            }
            if let Some(problem) = editing.problem() {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
            if app.settings.closing_with_changes {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "Changes not saved: save them, or discard them to close Settings.",
                );
            }
            ui.horizontal(|ui| {
                if ui.button("Save settings").clicked() {
                    save = true;
                }
                if app.settings.closing_with_changes && ui.button("Discard changes").clicked() {
                    discard = true;
                }
                let incomplete = app.model.rows().iter().filter(|r| r.id > 0 && !r.problems.is_empty()).count();
                let gives_some = editing.gives_some_default();
                if ui
                    .add_enabled(
                        incomplete > 0 && gives_some,
                        egui::Button::new(format!("Save, and fill in incomplete datasets ({incomplete})")),
                    )
                    .on_hover_text("Give the datasets added on this computer whose metadata is incomplete what these defaults have and they lack; each gets a new key, as any metadata edit does")
                    .on_disabled_hover_text(if gives_some {
                        "No dataset's metadata is incomplete"
                    } else {
                        "Set a default above first: there is nothing to fill in with"
                    })
                    .clicked()
                {
                    save = true;
                    fill_in = true;
                }
            });
            ui.separator();
            targets_section::show(app, ui);
            super::follow_focus(ui, app.focus_moved);
            });
            app.notices.show_inside(ui);
        });
    if save {
        // A problem is shown under its field and the window stays open with what was typed.
        let fixable = app
            .settings
            .editing
            .as_ref()
            .is_some_and(|s| s.problem().is_some());
        if !fixable && let Some(s) = app.settings.editing.take() {
            if fill_in {
                app.send(Command::FillInIncomplete(s.clone()));
            }
            app.send(Command::SaveSettings(s));
        }
    } else if discard {
        app.settings.editing = None;
    } else if !open || escape {
        // Typed changes are not thrown away by the ✖: the window says so and stays.
        app.settings.close(&app.model.settings);
    }
}

/// The rows of your other affiliations in the settings grid, each its name, its ROR and a
/// button that removes it, then a button that adds one.
fn other_affiliations(ui: &mut egui::Ui, rows: &mut Vec<OtherAffiliation>) {
    let mut remove = None;
    for (k, row) in rows.iter_mut().enumerate() {
        let l = ui.label("Another affiliation");
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut row.name)
                    .id_salt(("other affiliation", k))
                    .hint_text("Institution")
                    .desired_width(200.0),
            )
            .labelled_by(l.id);
            let l = ui.label("ROR");
            ui.add(
                egui::TextEdit::singleline(&mut row.ror)
                    .id_salt(("other affiliation ror", k))
                    .hint_text("e.g. 05a28rw58")
                    .desired_width(120.0),
            )
            .labelled_by(l.id);
            if ui
                .small_button("✖")
                .on_hover_text("Remove this affiliation")
                .clicked()
            {
                remove = Some(k);
            }
        });
        ui.end_row();
    }
    if let Some(k) = remove {
        rows.remove(k);
    }
    ui.label("");
    if ui
        .small_button("+ Another affiliation")
        .on_hover_text("Add another organisation you belong to")
        .clicked()
    {
        rows.push(OtherAffiliation::default());
    }
    ui.end_row();
}
