//! Settings → Targets: the configured targets (name, kind, URL, where the credentials come
//! from), the Add / Edit form, Remove, and "Test connection" with each check's outcome.
//! The secret is typed into a password field and handed to the service on Save; this panel
//! forgets it right after, and the model never holds it.

use egui::{Color32, RichText};

use super::LodgeApp;
use crate::app::{Command, ConfiguredTarget, TargetField, TargetForm, TargetTest};
use crate::targets::probe::Outcome;
use crate::targets::secret::Secret;

const ERROR: Color32 = Color32::from_rgb(0xd6, 0x3c, 0x3c);
const PASSED: Color32 = Color32::from_rgb(0x2e, 0x8b, 0x57);

/// What the section remembers between frames.
#[derive(Default)]
pub struct TargetsSection {
    form: Option<Draft>,
    /// "Save target" was pressed and the service has not answered yet.
    saving: bool,
    /// The target whose Remove was pressed, asking to be confirmed: its stored secret goes
    /// with it, and would have to be found and typed again.
    confirm_remove: Option<String>,
    /// The question was just asked: brought into view once (below the fold in a small
    /// window, it would seem that Remove did nothing).
    show_question: bool,
}

/// The Add / Edit form as typed.
#[derive(Default)]
struct Draft {
    editing: Option<String>,
    name: String,
    url: String,
    endpoint: String,
    region: String,
    user: String,
    secret: String,
    allow_insecure: bool,
    files_at_once: String,
    /// The target being edited has a user and no stored password or secret key.
    secret_missing: bool,
    /// The target being edited is paused because the server refused its stored password,
    /// secret key or token: the right one is what the person came to type.
    secret_refused: bool,
    /// Shown for the first time this frame: scrolled into view (it opens below the list,
    /// often past the window's edge, where a press on Edit would seem to do nothing).
    just_opened: bool,
    /// Frames its first field to type in has asked for the keyboard since it opened (the
    /// Add target or Edit pressed by keyboard vanished with the focus): see
    /// `dialogs::give_the_keyboard`.
    first_field_asked: u8,
}

impl Draft {
    fn edit(target: &ConfiguredTarget, secret_refused: bool) -> Draft {
        let f = TargetForm::edit(target);
        Draft {
            editing: f.editing,
            name: f.name,
            url: f.url,
            endpoint: f.endpoint,
            region: f.region,
            user: f.user,
            secret: String::new(),
            allow_insecure: f.allow_insecure,
            files_at_once: f.files_at_once,
            secret_missing: target.secret_missing,
            secret_refused,
            just_opened: true,
            first_field_asked: 0,
        }
    }

    /// The form for the service, the typed secret in a [`Secret`]. The draft keeps it
    /// until the save is done (the form closes then): a save refused for another field (a
    /// mistyped URL) must not lose what was typed for the next.
    fn form(&self) -> TargetForm {
        let secret = self.secret.clone();
        TargetForm {
            editing: self.editing.clone(),
            name: self.name.clone(),
            url: self.url.clone(),
            endpoint: self.endpoint.clone(),
            region: self.region.clone(),
            user: self.user.clone(),
            secret: (!secret.is_empty()).then(|| Secret::new(secret)),
            allow_insecure: self.allow_insecure,
            files_at_once: self.files_at_once.clone(),
        }
    }
}

pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) {
    ui.heading("Targets");
    ui.label("Where deposits can go besides the local sandbox. Secrets are kept in the OS keyring or a private file, never in the config file.");
    if app.model.start_error.is_some() {
        // Targets are opened, tested and saved by the running Lodge, which did not start.
        ui.label("Targets are listed and added once Lodge has started.");
        return;
    }
    follow_save(app);
    if app.model.configured.is_empty() {
        ui.label("No targets configured yet.");
    }
    let configured = app.model.configured.clone();
    for t in &configured {
        target_row(app, ui, t);
    }
    if app.settings.targets.form.is_none() {
        if ui.button("Add target").clicked() {
            app.settings.targets.form = Some(Draft {
                just_opened: true,
                ..Draft::default()
            });
            app.model.begin_target_save();
        }
    } else {
        form(app, ui);
    }
}

/// Close the form once the service says it was saved; stop waiting when it was refused.
fn follow_save(app: &mut LodgeApp) {
    let section = &mut app.settings.targets;
    if !section.saving {
        return;
    }
    let saved_this = match (&section.form, &app.model.target_saved) {
        (Some(d), Some(saved)) => d.name.trim() == saved,
        _ => false,
    };
    if saved_this {
        section.form = None;
        section.saving = false;
    } else if !app.model.target_problems.is_empty() {
        section.saving = false;
    }
}

fn target_row(app: &mut LodgeApp, ui: &mut egui::Ui, t: &ConfiguredTarget) {
    let name = &t.summary.name;
    ui.separator();
    // No target: the file they are saved in. Nothing here to test, edit or remove; the
    // fix is made in the file, which the window reads again once it changes.
    if t.unreadable_config {
        ui.label(
            RichText::new(format!(
                "⚠ {} The saved targets are listed here once it is fixed (in an editor); \
                 until then only the local sandbox is used.",
                crate::wording::sentence(&crate::wording::capitalized(
                    t.problem
                        .as_deref()
                        .unwrap_or("The config file cannot be read")
                ))
            ))
            .color(ERROR),
        );
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(name).strong());
        ui.label(format!("({})", t.summary.kind));
        ui.label(&t.summary.url);
    });
    // (None said for an entry that is not valid: its problem is.)
    if !t.summary.credentials.is_empty() {
        ui.label(format!("Credentials: {}", t.summary.credentials));
    }
    if !t.summary.settings.is_empty() {
        ui.label(format!("Settings: {}", t.summary.settings));
    }
    if let Some(problem) = &t.problem {
        ui.label(RichText::new(format!("⚠ Not in the picker: {problem}")).color(ERROR));
    }
    // Where the fix is made: the pause is said beside the Edit that lifts it.
    if let Some(reason) = app.model.paused_reason(&t.summary.scope_id) {
        ui.label(
            RichText::new(format!(
                "⏸ Paused: {} Nothing is sent there until you act: {}.",
                crate::wording::sentence(reason),
                crate::app::paused_target_fix(reason, &t.summary.scope_id)
            ))
            .color(ERROR),
        );
    }
    let testing = matches!(app.model.target_tests.get(name), Some(TargetTest::Running));
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!testing, egui::Button::new("Test connection"))
            .on_hover_text(format!(
                "Check that '{name}' is reachable, accepts the credentials and honours conditional writes"
            ))
            .clicked()
        {
            app.send(Command::TestTarget(name.clone()));
        }
        if ui.button("Edit").clicked() {
            // Paused for refused credentials: the form opens on the secret it keeps (a
            // sandbox keeps none: its token comes with each run).
            let refused = app
                .model
                .paused_reason(&t.summary.scope_id)
                .is_some_and(crate::targets::is_paused_for_credentials)
                && t.config.keeps_secret();
            app.settings.targets.form = Some(Draft::edit(t, refused));
            app.settings.targets.saving = false;
            app.model.begin_target_save();
        }
        if ui
            .button("Remove")
            .on_hover_text("Remove the target and its stored secret; its deposit history stays")
            .clicked()
        {
            app.settings.targets.confirm_remove = Some(name.clone());
            app.settings.targets.show_question = true;
        }
    });
    if app.settings.targets.confirm_remove.as_ref() == Some(name) {
        let secret = match t.config.keeps_secret() {
            true => " and its stored secret (to use it again, it is typed again)",
            false => "",
        };
        // Deposits still to do there wait on the queue: said before, not only after.
        let scope = &t.summary.scope_id;
        let waiting = (app.model.rows().iter())
            .filter(|r| r.jobs.get(scope).is_some_and(|j| !j.state.is_terminal()))
            .count();
        let queued = match waiting {
            0 => String::new(),
            n => format!(
                " {} for it still on the queue {} there, unsent, until the target is added \
                 again or {} taken off the queue.",
                crate::wording::count_of(n as u64, "deposit", "deposits"),
                if n == 1 { "waits" } else { "wait" },
                if n == 1 { "it is" } else { "they are" },
            ),
        };
        ui.label(
            RichText::new(format!(
                "Remove '{name}'{secret}? Its deposit history stays, and its deposits stay on \
                 the server.{queued}"
            ))
            .color(ui.visuals().warn_fg_color),
        );
        let buttons = ui.horizontal(|ui| {
            if ui.button(format!("Remove {name}")).clicked() {
                app.settings.targets.confirm_remove = None;
                app.send(Command::RemoveTarget(name.clone()));
            }
            if ui.button("Keep it").clicked() {
                app.settings.targets.confirm_remove = None;
            }
        });
        if std::mem::take(&mut app.settings.targets.show_question) {
            buttons.response.scroll_to_me(None);
        }
    }
    match app.model.target_tests.get(name) {
        None => {}
        Some(TargetTest::Running) => {
            ui.label("Testing…");
        }
        Some(TargetTest::Error(e)) => {
            ui.label(RichText::new(format!("✖ {e}")).color(ERROR));
        }
        Some(TargetTest::Done(report)) => {
            for check in &report.checks {
                let (text, color) = match &check.outcome {
                    // The mark says how it went, as the command line's ok / FAILED do: "✖
                    // reachable failed: … does not answer" said it twice.
                    Outcome::Passed(t) => (format!("✔ {}: {t}", check.name), PASSED),
                    Outcome::Failed(t) => (format!("✖ {}: {t}", check.name), ERROR),
                    Outcome::Skipped(t) => (
                        format!("– {} skipped: {t}", check.name),
                        ui.visuals().weak_text_color(),
                    ),
                };
                ui.label(RichText::new(text).color(color));
            }
            let verdict = if report.ok() {
                format!("'{name}' is ready for deposits.")
            } else if report.only_busy() {
                format!(
                    "'{name}' answered but is busy now: nothing to fix, test again in a moment."
                )
            } else {
                format!("'{name}' cannot be used yet: fix the failed check and test again.")
            };
            ui.label(RichText::new(verdict).strong());
        }
    }
}

fn form(app: &mut LodgeApp, ui: &mut egui::Ui) {
    let problems = app.model.target_problems.clone();
    let saving = app.settings.targets.saving;
    let Some(draft) = app.settings.targets.form.as_mut() else {
        return;
    };
    ui.separator();
    let top = ui
        .label(
            RichText::new(match &draft.editing {
                Some(name) => format!("Edit target '{name}'"),
                None => "Add target".to_string(),
            })
            .strong(),
        )
        .rect;
    // A field's errors go in the rows under it, in the fields' column.
    let error_at = |ui: &mut egui::Ui, field: TargetField| {
        for (_, message) in problems.iter().filter(|(f, _)| *f == field) {
            ui.label("");
            // Wrapped at the fields' width: a grid cell would grow to the whole message,
            // and the window with it.
            ui.scope(|ui| {
                ui.set_max_width(FIELD_WIDTH);
                ui.add(egui::Label::new(RichText::new(format!("⚠ {message}")).color(ERROR)).wrap());
            });
            ui.end_row();
        }
    };
    let editing = draft.editing.is_some();
    // What each refused field held, to drop its errors once the person types a fix.
    let value_of = |draft: &Draft, field: TargetField| match field {
        TargetField::Name => Some(draft.name.clone()),
        TargetField::Url => Some(draft.url.clone()),
        TargetField::Endpoint => Some(draft.endpoint.clone()),
        TargetField::User => Some(draft.user.clone()),
        TargetField::Secret => Some(draft.secret.len().to_string()),
        TargetField::FilesAtOnce => Some(draft.files_at_once.clone()),
        TargetField::Form => None,
    };
    let url_before = draft.url.clone();
    let before: Vec<(TargetField, Option<String>)> = problems
        .iter()
        .map(|(f, _)| (*f, value_of(draft, *f)))
        .collect();
    // Labels in one column and fields in the next, one width, as in the defaults above.
    egui::Grid::new("target_form")
        .num_columns(2)
        .show(ui, |ui| {
            let name = field(ui, "Target name", &mut draft.name, "lab-s3", !editing);
            error_at(ui, TargetField::Name);
            let url = field(
                ui,
                "Target URL",
                &mut draft.url,
                "s3://bucket/prefix, webdav+https://host/path, zenodo+https://zenodo.org, …",
                true,
            );
            // The keyboard to the first field to type in (a target's name is kept when
            // edited), unless the secret is what the person came to type (below).
            if !(draft.secret_missing || draft.secret_refused) {
                let first = if editing { &url } else { &name };
                super::dialogs::give_the_keyboard(first, &mut draft.first_field_asked);
            }
            error_at(ui, TargetField::Url);
            folders_checkbox(ui, &mut draft.url);
            ui.label("");
            ui.checkbox(
                &mut draft.allow_insecure,
                "Allow plain http:// to a host that is not this computer",
            );
            ui.end_row();
            field(
                ui,
                "S3 endpoint",
                &mut draft.endpoint,
                "S3 only: https://s3.example.org (default AWS)",
                true,
            );
            error_at(ui, TargetField::Endpoint);
            field(
                ui,
                "S3 region",
                &mut draft.region,
                "S3 only: us-east-1",
                true,
            );
            field(
                ui,
                "Files at once",
                &mut draft.files_at_once,
                "S3, WebDAV, sandbox: a deposit's files sent at once, 1 to 32 (default 4)",
                true,
            );
            error_at(ui, TargetField::FilesAtOnce);
            field(
                ui,
                "User or access key id",
                &mut draft.user,
                "WebDAV user name or S3 access key id (none for a token)",
                true,
            );
            error_at(ui, TargetField::User);
            let l = ui.label(RichText::new("Password, secret key or token").strong());
            let hint = if draft.secret_missing {
                "none stored yet: type it here"
            } else if draft.secret_refused {
                "the server refused the stored one: type the right one"
            } else if editing {
                "empty keeps the stored one"
            } else {
                "stored in the keyring, not in the config"
            };
            let secret = ui
                .add(
                    egui::TextEdit::singleline(&mut draft.secret)
                        .password(true)
                        .hint_text(hint)
                        .desired_width(FIELD_WIDTH),
                )
                .labelled_by(l.id);
            if draft.just_opened && (draft.secret_missing || draft.secret_refused) {
                secret.request_focus();
            }
            ui.end_row();
            error_at(ui, TargetField::Secret);
        });
    for (_, message) in problems.iter().filter(|(f, _)| *f == TargetField::Form) {
        ui.label(RichText::new(format!("⚠ {message}")).color(ERROR));
    }
    let mut typed_over: Vec<TargetField> = before
        .into_iter()
        .filter(|(f, held)| held.is_some() && value_of(draft, *f) != *held)
        .map(|(f, _)| f)
        .collect();
    // Whether a user or a secret fits depends on the kind of target the URL says (a
    // sandbox keeps none): a new URL is a new question for them too.
    if draft.url != url_before {
        typed_over.extend([TargetField::Url, TargetField::User, TargetField::Secret]);
    }
    let mut save = false;
    let mut cancel = false;
    ui.horizontal(|ui| {
        save = ui
            .add_enabled(!saving, egui::Button::new("Save target"))
            .clicked();
        cancel = ui.button("Cancel").clicked();
    });
    if std::mem::take(&mut draft.just_opened) {
        let whole_form =
            egui::Rect::from_min_max(top.min, egui::pos2(top.max.x, ui.cursor().top()));
        ui.scroll_to_rect(whole_form, None);
    }
    if !typed_over.is_empty() {
        app.model
            .target_problems
            .retain(|(f, _)| !typed_over.contains(f));
    }
    if save {
        let form = draft.form();
        app.settings.targets.saving = true;
        app.model.begin_target_save();
        app.send(Command::SaveTarget(form));
    } else if cancel {
        app.settings.targets.form = None;
        app.settings.targets.saving = false;
        app.model.begin_target_save();
    }
}

/// Width of the form's text fields: they end where the defaults' fields above end.
const FIELD_WIDTH: f32 = 360.0;

/// One row of the form's grid: the label, and the field it names.
fn field(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut String,
    hint: &str,
    enabled: bool,
) -> egui::Response {
    let l = ui.label(RichText::new(label).strong());
    let field = ui
        .add_enabled(
            enabled,
            egui::TextEdit::singleline(value)
                .hint_text(hint)
                .desired_width(FIELD_WIDTH),
        )
        .labelled_by(l.id);
    ui.end_row();
    field
}

/// "A folder per dataset": puts `?layout=folders` on an S3 or WebDAV URL, or takes it off,
/// so a person need not know the query. Greyed out for the kinds that keep files in
/// their records.
fn folders_checkbox(ui: &mut egui::Ui, url: &mut String) {
    use crate::targets::layout::{url_keeps_folders, url_lays_out_files, url_with_folders};
    ui.label("");
    let mut folders = url_keeps_folders(url);
    let response = ui
        .add_enabled(
            url_lays_out_files(url),
            egui::Checkbox::new(
                &mut folders,
                "A folder per dataset, files by name (S3, WebDAV)",
            ),
        )
        .on_hover_text(
            "Keeps each dataset in datasets/TITLE-KEY/ with its own file names, for people \
             who browse the bucket or share, instead of once per content under blobs/. A \
             new key (a file or the metadata changed) is a new folder with every file sent \
             again. Sets ?layout=folders on the URL; deposits made before are not moved",
        )
        .on_disabled_hover_text(
            "Only for S3 and WebDAV targets: a repository keeps a dataset's files in its \
             record",
        );
    if response.changed() {
        *url = url_with_folders(url, folders);
    }
    ui.end_row();
}
