//! The details panel of the selected dataset: the metadata form (inline validation that
//! blocks Deposit), the manifest (paths, sizes, hashes) and the deposit attempts per target.

use std::collections::{HashMap, HashSet};

use egui::RichText;

use super::metadata_form::{self, MetadataForm};
use super::{LodgeApp, badge, format, table};
use crate::app::{CheckOf, Command, DedupStatus, Notice, StatusKind, Update};
use crate::content::{FieldProblem, Metadata, citation};
use crate::store::{JobRow, JobState, replays_by_original};
use crate::targets::ReadBack;
use crate::wording::{count_of, human_bytes, replayed_since};

#[derive(Default)]
pub struct DetailsState {
    /// The form and the stored metadata it started from (to tell edits apart).
    form: Option<(i64, MetadataForm, MetadataForm)>,
    /// Forms with edits not saved, of datasets not shown now (another row was selected,
    /// or the details closed), with the stored metadata each started from: they come back
    /// with their dataset, so a click elsewhere never throws edits away.
    drafts: HashMap<i64, (MetadataForm, MetadataForm)>,
    /// The row and its jobs' stamp the details were loaded for.
    loaded_for: Option<(i64, (i64, u64))>,
    /// Where the panel was drawn last frame, while it shows.
    drawn: Option<egui::Rect>,
    /// The dataset the panel showed last frame: another one opens at its top.
    shown: Option<i64>,
    /// The panel's width, once the person dragged its edge (kept while the window is open).
    chosen_width: Option<f32>,
}

impl DetailsState {
    /// The details show nothing, or another dataset: the form goes, its edits (if any)
    /// kept as a draft.
    pub fn reset(&mut self) {
        let mut drafts = std::mem::take(&mut self.drafts);
        if let Some((id, form, base)) = self.form.take()
            && !form.says_the_same_as(&base)
        {
            drafts.insert(id, (form, base));
        }
        *self = DetailsState {
            drafts,
            chosen_width: self.chosen_width,
            ..DetailsState::default()
        };
    }

    /// Drop the forms of datasets no longer on the list (`listed` says which are): removed
    /// elsewhere, by a terminal's `lodge remove` or another window. Returns those whose
    /// forms held edits not saved, which went with them.
    pub fn drop_unlisted(&mut self, listed: impl Fn(i64) -> bool) -> Vec<i64> {
        let mut lost = Vec::new();
        if let Some((id, form, base)) = &self.form
            && !listed(*id)
        {
            if !form.says_the_same_as(base) {
                lost.push(*id);
            }
            self.form = None;
        }
        self.drafts.retain(|id, (form, base)| {
            let keep = listed(*id);
            if !keep && !form.says_the_same_as(base) {
                lost.push(*id);
            }
            keep
        });
        lost.sort_unstable();
        lost
    }

    /// Forget dataset `id`'s form and its edits: the window removes it, having asked.
    pub fn forget(&mut self, id: i64) {
        if self.form.as_ref().is_some_and(|(shown, _, _)| *shown == id) {
            self.form = None;
        }
        self.drafts.remove(&id);
    }

    /// Open the panel at its top in the next frame (where a refusal's cause is said), as
    /// for a dataset selected anew.
    pub fn to_the_top(&mut self) {
        self.shown = None;
    }

    /// Where the panel was drawn in the last frame (the part of it on screen), `None` while
    /// it is closed.
    pub fn drawn(&self) -> Option<egui::Rect> {
        self.drawn
    }

    /// The panel is not drawn this frame (no dataset selected, or the History shown).
    pub fn not_drawn(&mut self) {
        self.drawn = None;
    }

    /// The metadata each dataset's edits not saved give (the form shown, and the drafts),
    /// with what is wrong with it: a deposit must carry what the person sees, not what
    /// was stored before they typed.
    pub fn unsaved_edits(&self) -> HashMap<i64, (Metadata, Vec<FieldProblem>)> {
        self.form
            .iter()
            .map(|(id, form, base)| (*id, form, base))
            .chain(
                self.drafts
                    .iter()
                    .map(|(id, (form, base))| (*id, form, base)),
            )
            .filter(|(_, form, base)| !form.says_the_same_as(base))
            .map(|(id, form, _)| (id, form.to_metadata()))
            .collect()
    }

    /// The datasets whose forms (shown, or kept as drafts) say what their stored metadata,
    /// read by `stored`, does not: what closing the window would throw away. Measured
    /// against the store as it is now, not as the form started, so a draft saved since (from
    /// a terminal, say) counts as saved. Sorted by id.
    pub fn edits_not_stored<'a>(&self, stored: impl Fn(i64) -> Option<&'a Metadata>) -> Vec<i64> {
        let forms = self
            .form
            .iter()
            .map(|(id, form, _)| (*id, form))
            .chain(self.drafts.iter().map(|(id, (form, _))| (*id, form)));
        let mut ids: Vec<i64> = forms
            .filter(|(id, form)| {
                stored(*id).is_some_and(|m| !form.says_the_same_as(&MetadataForm::from_metadata(m)))
            })
            .map(|(id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The form holding dataset `id`'s edits (shown, or kept as a draft), if any.
    pub fn form_of(&self, id: i64) -> Option<&MetadataForm> {
        match &self.form {
            Some((shown, form, _)) if *shown == id => Some(form),
            _ => self.drafts.get(&id).map(|(form, _)| form),
        }
    }
}

/// The details panel's least width.
const DETAILS_LEAST: f32 = 320.0;
/// The details panel's width until the person drags its edge, where the window has room.
const DETAILS_DEFAULT: f32 = 430.0;
/// The details panel's id (among the window's panels).
const DETAILS_PANEL: &str = "details_panel";
/// The width the details panel leaves the table at least.
const TABLE_ROOM: f32 = 480.0;

pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) -> f32 {
    app.details.drawn = None;
    let Some(id) = app.selected else { return 0.0 };
    let Some(entry) = app.model.row(id).cloned() else {
        return 0.0;
    };
    // Reload the manifest and attempts when one of the row's jobs moved (one the row does
    // not show too: a replay).
    let latest = entry
        .jobs
        .values()
        .map(|j| j.updated_at + j.id)
        .max()
        .unwrap_or(0);
    // A copy's deposit of its key, shared, counts as the row's: on every target, since
    // the details list the deposits to each.
    let shared = (app.model.copy_deposits(&entry))
        .map(|(_, j)| j.updated_at + j.id)
        .max()
        .unwrap_or(0);
    let stamp = (latest.max(shared), entry.jobs_changed);
    if id > 0 && entry.hashing.is_none() && app.details.loaded_for != Some((id, stamp)) {
        if app.details.loaded_for.is_some_and(|(d, _)| d == id) {
            app.send(Command::LoadDetails { id });
        }
        app.details.loaded_for = Some((id, stamp));
    }
    // (Re)build the form for another dataset, or when the stored metadata changed and
    // nothing is being edited; once what the form holds is what is stored (its edits saved,
    // by Save or by Deposit), it has no edits left. Metadata saved elsewhere while the form
    // has edits (a terminal's `lodge add`) joins them: a later Save must not undo it.
    let stored = MetadataForm::from_metadata(&entry.metadata);
    let mut edited_twice = Vec::new();
    if app
        .details
        .form
        .as_ref()
        .is_none_or(|(fid, _, _)| *fid != id)
    {
        // This dataset's draft, if it has one, with the edits left in it.
        let (form, base) =
            (app.details.drafts.remove(&id)).unwrap_or_else(|| (stored.clone(), stored.clone()));
        app.details.form = Some((id, form, base));
    }
    if let Some((_, form, base)) = &mut app.details.form
        && *base != stored
    {
        if form.says_the_same_as(&stored) || *form == *base {
            *form = stored.clone();
        } else {
            edited_twice = form.rebase(base, &stored);
        }
        *base = stored;
    }
    if !edited_twice.is_empty() {
        app.model.apply(Update::Notice(Notice::warning(format!(
            "{}'s metadata was saved elsewhere while you edited it. The form now holds what \
             was saved, with your edits on top; {} changed there too and keeps what you \
             typed. Save metadata to keep the form as it is, or Undo edits to take what was \
             saved.",
            entry.name,
            edited_twice.join(", ")
        ))));
    }

    // The panel's width is the window's and the person's to choose, never its content's: a
    // long line (a deposit's buttons, a job's header) wraps or is cut short, and widens
    // nothing. The table keeps room for a row's name, status and the actions a person
    // reaches for (Deposit or Open record, Show folder, Remove): in the smallest window (800
    // wide) the panel is its narrowest rather than push them out of sight.
    let room = ui.available_width();
    let most = (room - TABLE_ROOM).max(DETAILS_LEAST).min(room);
    let least = DETAILS_LEAST.min(most);
    let width = (app.details.chosen_width)
        .unwrap_or(DETAILS_DEFAULT)
        .clamp(least, most);
    // egui keeps the width a panel had last frame and takes it up again: what it keeps is
    // set to the width chosen here, so a window shrunk and enlarged again gives the panel
    // its width back. A drag of its edge changes what egui keeps, and is taken as the
    // person's choice below.
    let panel_id = ui.scope_id().with_salt(egui::IdSalt::new(DETAILS_PANEL));
    let at = ui.available_rect_before_wrap();
    let kept = egui::Rect::from_min_max(egui::pos2(at.right() - width, at.top()), at.max);
    ui.ctx()
        .data_mut(|d| d.insert_persisted(panel_id, egui::PanelState { outer_rect: kept }));
    // A dataset selected anew opens at its top (egui would keep, and restore in the next
    // run, where its details were last scrolled to).
    let to_the_top = app.details.shown != Some(id);
    app.details.shown = Some(id);
    let mut scroll = egui::ScrollArea::vertical()
        .id_salt("details_scroll")
        .auto_shrink([false, true]);
    if to_the_top {
        scroll = scroll.vertical_scroll_offset(0.0);
    }
    let panel = egui::Panel::right(DETAILS_PANEL)
        .resizable(true)
        .default_size(width)
        .size_range(least..=most)
        .show(ui, |ui| {
            scroll.show(ui, |ui| {
                within_width(ui, |ui| {
                    ui.horizontal(|ui| {
                        if ui
                            .small_button("✖")
                            .on_hover_text("Close the details")
                            .clicked()
                        {
                            app.selected = None;
                        }
                        // Wrapped: a long name must not widen the panel past the table's
                        // room (it stays that wide for every dataset after).
                        ui.add(egui::Label::new(RichText::new(&entry.name).heading()).wrap());
                    });
                    // Two folders may share a name; the path tells them apart.
                    ui.add(egui::Label::new(RichText::new(&entry.path).weak()).wrap());
                    let status = app.model.status(&entry, app.target_id());
                    if matches!(status, DedupStatus::ChangedSinceScan { .. }) {
                        ui.horizontal(|ui| {
                            badge::show(ui, &status, app.clock.now_ms());
                            if ui
                                .small_button("Rescan")
                                .on_hover_text("Scan the folder again and re-key it")
                                .clicked()
                            {
                                app.send(table::rescan(&entry));
                            }
                        });
                    } else if app.model.folder_gone(entry.id)
                        && matches!(
                            status.kind(),
                            StatusKind::Deposited
                                | StatusKind::AlreadyDeposited
                                | StatusKind::Damaged
                        )
                    {
                        ui.horizontal(|ui| {
                            badge::show(ui, &status, app.clock.now_ms());
                            badge::folder_missing_note(ui, &entry.path);
                        });
                    } else {
                        badge::show(ui, &status, app.clock.now_ms());
                    }
                    why_it_stopped(app, ui, &entry, &status);
                    ui.label(format!(
                        "{}, {}",
                        count_of(entry.file_count, "file", "files"),
                        format::bytes(entry.total_bytes)
                    ));
                    if let Some(key) = entry.key {
                        ui.horizontal(|ui| {
                            ui.label("Key");
                            format::content_key(ui, &key);
                        });
                    }
                    edits_strip(app, ui, &entry);
                    ui.separator();
                    form_section(app, ui, &entry);
                    ui.separator();
                    manifest(app, ui, id);
                    left_out(app, ui, id);
                    attempts(app, ui, id);
                });
                super::follow_focus(ui, app.focus_moved);
            });
        });
    // Dragged to another width (egui keeps the width it was dragged to once let go).
    let now_kept = egui::PanelState::load(ui.ctx(), panel_id).map(|s| s.outer_rect.width());
    if let Some(dragged) = now_kept.filter(|w| (w - width).abs() >= 1.0) {
        app.details.chosen_width = Some(dragged);
    }
    let drawn = panel.response.rect.intersect(ui.max_rect());
    app.details.drawn = Some(drawn);
    drawn.width()
}

/// Lay out `add_contents` no wider than `ui` has room for: what is wider (a header that
/// does not wrap) is cut off at the edge rather than widen `ui`, and with it the panel.
fn within_width(ui: &mut egui::Ui, add_contents: impl FnOnce(&mut egui::Ui)) {
    let width = ui.available_width();
    let mut inner = ui.new_child(
        egui::UiBuilder::new()
            .id_salt("within_width")
            .max_rect(ui.available_rect_before_wrap())
            .layout(*ui.layout()),
    );
    inner.set_max_width(width);
    add_contents(&mut inner);
    let used = inner.min_rect();
    ui.advance_cursor_after_rect(egui::Rect::from_min_size(
        used.min,
        egui::vec2(width, used.height()),
    ));
}

/// Under the status of a deposit that failed or was refused: why, in full (the row shows
/// it only on hover, the attempts at the panel's foot); for a failed one *Retry*, which
/// re-queues that job with the same key; and for both *Dismiss*, which gives up on it.
fn why_it_stopped(
    app: &LodgeApp,
    ui: &mut egui::Ui,
    entry: &crate::app::DatasetEntry,
    status: &DedupStatus,
) {
    let cause = match status {
        DedupStatus::Failed { cause } | DedupStatus::Rejected { cause } => cause,
        _ => return,
    };
    ui.add(egui::Label::new(RichText::new(cause).color(ui.visuals().warn_fg_color)).wrap());
    if let DedupStatus::Failed { .. } = status {
        let edits = app.details.unsaved_edits();
        // Wrapped: with edits not saved it reads Retry as saved · Dismiss · Deposit edits,
        // wider than the panel at its narrowest.
        let command = ui
            .horizontal_wrapped(|ui| {
                super::table::failed_actions(
                    ui,
                    entry,
                    app.model.deposit_job(entry, app.target_id()),
                    edits.get(&entry.id),
                    app.target_id(),
                    false,
                )
            })
            .inner;
        if let Some(command) = command {
            app.send(command);
        }
    } else {
        let job = app.model.deposit_job(entry, app.target_id());
        if let Some(command) = super::table::dismiss_button(ui, job, true) {
            app.send(command);
        }
    }
}

/// Under a failed job to a target the picker does not show now (the row's status, and its
/// Retry, are the picked target's): what retries it. Its Retry where the window can reach
/// the target; else the command that retries it where it was sent from. Nothing when a
/// retry could not re-queue it: given up on, its key landed there since, or the dataset
/// scanned again under another key.
fn retry_elsewhere(
    app: &LodgeApp,
    ui: &mut egui::Ui,
    dataset: i64,
    job: &JobRow,
    jobs: &[(JobRow, Vec<crate::store::EventRow>)],
) {
    let retryable = job.state == JobState::Failed
        && job.dismissed_at.is_none()
        && job.target != app.target_id()
        && app.model.row(dataset).and_then(|row| row.key) == Some(job.key)
        && !jobs
            .iter()
            .any(|(o, _)| o.target == job.target && o.key == job.key && o.state.is_landed());
    if !retryable {
        return;
    }
    if app.model.has_target(&job.target) {
        let button = ui
            .small_button("Retry")
            .on_hover_text("Re-queue it with the same key, to this target");
        if button.clicked() {
            app.send(Command::Retry { jobs: vec![job.id] });
        }
        return;
    }
    // Selectable, to copy the command.
    let command = format!("lodge retry {}", job.id);
    ui.add(egui::Label::new(RichText::new(command).weak().monospace()))
        .on_hover_text(format!(
            "{} is not one of the window's targets (it was used from the command line): \
             `lodge retry {}` retries it there, or add it in Settings, under Targets",
            job.target, job.id
        ));
}

/// Near the top, while the form holds edits not saved: a mark saying so, with Save and
/// Undo (the form's own buttons are at its foot, below some twenty fields).
fn edits_strip(app: &mut LodgeApp, ui: &mut egui::Ui, entry: &crate::app::DatasetEntry) {
    let folder_missing =
        app.model.status(entry, app.target_id()).kind() == StatusKind::FolderMissing;
    let Some((_, form, base)) = app.details.form.as_mut() else {
        return;
    };
    // The strip keeps one height, edits or none: the form below must not move under the
    // pointer (or the caret) when the first key typed brings the strip.
    let height = ui.spacing().interact_size.y;
    if form.says_the_same_as(base) {
        ui.horizontal(|ui| {
            ui.set_min_height(height);
            ui.label(RichText::new("✔ Metadata as saved").weak())
                .on_hover_text(
                    "The form holds the metadata as it was saved; an edit below is marked \
                     here, with Save and Undo",
                );
        });
        return;
    }
    let mut save = false;
    let mut not_saved: Option<String> = None;
    let unsaveable = form.unsaveable();
    let can_save = entry.hashing.is_none() && !folder_missing && unsaveable.is_none();
    ui.horizontal(|ui| {
        ui.set_min_height(height);
        ui.label(RichText::new("✏ Edits not saved").color(ui.visuals().warn_fg_color));
        save = ui
            .add_enabled(can_save, egui::Button::new("Save").small())
            .on_hover_text(format!(
                "As Save metadata at the form's foot: re-key the dataset with what the form \
                 says ({})",
                ui.ctx().format_shortcut(&super::shortcuts::SAVE)
            ))
            .on_disabled_hover_text(unsaveable.clone().unwrap_or_default())
            .clicked();
        // Typing in a field too: the form's own Save is some twenty fields below. One that
        // cannot save says why (a greyed button's hover is no keyboard's).
        if ui.input_mut(|i| i.consume_shortcut(&super::shortcuts::SAVE)) {
            match (can_save, &unsaveable) {
                (true, _) => save = true,
                (false, Some(why)) => not_saved = Some(why.clone()),
                (false, None) if folder_missing => {
                    not_saved =
                        Some("its folder is gone: drop it where it is now onto the window".into())
                }
                (false, None) => not_saved = Some("it is being hashed: wait a moment".into()),
            }
        }
        if ui
            .small_button("Undo")
            .on_hover_text(
                "As Undo edits at the form's foot: take back what the form held when it was saved",
            )
            .clicked()
        {
            *form = base.clone();
        }
    });
    if save {
        let metadata = form.to_metadata().0;
        app.send(Command::SetMetadata {
            id: entry.id,
            metadata: Box::new(metadata),
            then_deposit: None,
        });
    }
    if let Some(why) = not_saved {
        app.model.apply(Update::Notice(Notice::warning(format!(
            "{}'s metadata is not saved: {why}",
            entry.name
        ))));
    }
}

/// Why the details offer no Deposit while the dataset's deposit to the picked target is on
/// the queue already, as its row offers none (waiting to be tried again, queued, being
/// sent): pressing it would only say so. The row's own words come first (`⟳ Retry in 24 s`).
fn already_on_queue(status: &DedupStatus, now_ms: i64) -> Option<String> {
    match status {
        DedupStatus::WaitingToRetry { .. }
        | DedupStatus::Queued { .. }
        | DedupStatus::Uploading { .. } => Some(format!(
            "{}: this deposit is on the queue already, with the same key; it is not queued \
             twice",
            badge::text(status, now_ms)
        )),
        _ => None,
    }
}

fn form_section(app: &mut LodgeApp, ui: &mut egui::Ui, entry: &crate::app::DatasetEntry) {
    let target = app.target_id().to_string();
    let folder_missing = app.model.status(entry, &target).kind() == StatusKind::FolderMissing;
    let target_short = app
        .model
        .target_label(&target)
        .split(" — ")
        .next()
        .unwrap_or("")
        .to_string();
    let on_queue = already_on_queue(&app.model.status(entry, &target), app.clock.now_ms());
    let Some((_, form, base)) = app.details.form.as_mut() else {
        return;
    };
    ui.heading("Metadata");
    let (_, problems) = form.to_metadata();
    metadata_form::show(ui, form, &problems);
    let (metadata, problems) = form.to_metadata();
    let edited = !form.says_the_same_as(base);
    let busy = entry.hashing.is_some();
    let unsaveable = form.unsaveable();
    let mut command = None;
    ui.add_space(6.0);
    // Wrapped: Save metadata · Deposit to a target's name · Undo edits is wider than the
    // panel at its narrowest.
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(
                edited && !busy && !folder_missing && unsaveable.is_none(),
                egui::Button::new("Save metadata"),
            )
            .on_hover_text("Re-key the dataset with this metadata (files are not hashed again)")
            .on_disabled_hover_text(unsaveable.clone().unwrap_or_default())
            .clicked()
        {
            command = Some(Command::SetMetadata {
                id: entry.id,
                metadata: Box::new(metadata.clone()),
                then_deposit: None,
            });
        }
        // Edits make another key, a deposit of its own: only the same key waits on the queue.
        let on_queue = on_queue.filter(|_| !edited);
        let can_deposit =
            problems.is_empty() && !busy && entry.id > 0 && !folder_missing && on_queue.is_none();
        let deposit = ui
            .add_enabled(
                can_deposit,
                egui::Button::new(format!("Deposit to {target_short}")),
            )
            .on_disabled_hover_text(match &on_queue {
                _ if folder_missing => {
                    "The folder is gone: drop it where it is now onto the window".to_string()
                }
                Some(why) => why.clone(),
                None => "Fix the fields marked in red first".to_string(),
            });
        if deposit.clicked() {
            command = Some(if edited {
                Command::SetMetadata {
                    id: entry.id,
                    metadata: Box::new(metadata.clone()),
                    then_deposit: Some(target.clone()),
                }
            } else {
                Command::Deposit {
                    ids: vec![entry.id],
                    target: target.clone(),
                }
            });
        }
        if edited && ui.button("Undo edits").clicked() {
            *form = base.clone();
        }
    });
    if !problems.is_empty() {
        ui.label(
            RichText::new(format!(
                "{} to fix before depositing.",
                count_of(problems.len() as u64, "problem", "problems")
            ))
            .color(egui::Color32::from_rgb(0xd6, 0x3c, 0x3c)),
        );
    }
    if let Some(c) = command {
        app.send(c);
    }
}

fn manifest(app: &LodgeApp, ui: &mut egui::Ui, id: i64) {
    let details = app.model.details.as_ref().filter(|d| d.dataset == id);
    let count = details.map(|d| d.files.len());
    egui::CollapsingHeader::new(format!(
        "Files ({})",
        count.map_or("…".into(), |n| n.to_string())
    ))
    .id_salt("manifest")
    .show(ui, |ui| {
        let Some(d) = details else {
            ui.label("Loading…");
            return;
        };
        egui::ScrollArea::vertical()
            .id_salt("manifest_scroll")
            .max_height(180.0)
            .show_rows(ui, 18.0, d.files.len(), |ui, range| {
                for f in &d.files[range] {
                    ui.horizontal(|ui| {
                        ui.monospace(&f.sha256[..12]).on_hover_text(&f.sha256);
                        ui.label(format::bytes(f.size));
                        ui.label(&f.rel_path);
                    });
                }
            });
    });
}

/// What the folder leaves out of the dataset (links, pipes, ignored files), when anything.
fn left_out(app: &LodgeApp, ui: &mut egui::Ui, id: i64) {
    let Some(d) = app.model.details.as_ref().filter(|d| d.dataset == id) else {
        return;
    };
    if d.left_out.is_empty() {
        return;
    }
    // Open from the start: data a person may have meant to deposit is not.
    egui::CollapsingHeader::new(format!("Left out ({})", d.left_out.len()))
        .id_salt("left_out")
        .default_open(true)
        .show(ui, |ui| {
            ui.label("Not part of the dataset, so not deposited:");
            egui::ScrollArea::vertical()
                .id_salt("left_out_scroll")
                .max_height(120.0)
                .show_rows(ui, 18.0, d.left_out.len(), |ui, range| {
                    for skipped in &d.left_out[range] {
                        ui.label(format!("{} ({})", skipped.rel_path, skipped.why()));
                    }
                });
        });
}

fn attempts(app: &LodgeApp, ui: &mut egui::Ui, id: i64) {
    let details = app.model.details.as_ref().filter(|d| d.dataset == id);
    egui::CollapsingHeader::new("Deposit attempts")
        .id_salt("attempts")
        .default_open(true)
        .show(ui, |ui| {
            let Some(d) = details else {
                ui.label("Loading…");
                return;
            };
            if d.jobs.is_empty() {
                ui.label("Not deposited anywhere yet.");
                return;
            }
            // The picker's targets by their names, then any other the dataset went to (a
            // URL given on the command line, a target since removed) by its address.
            let mut places: Vec<(String, &str)> = app
                .model
                .targets
                .iter()
                .map(|t| {
                    let name = t.label.split(" — ").next().unwrap_or("").to_string();
                    (name, t.scope_id.as_str())
                })
                .collect();
            for (job, _) in &d.jobs {
                if !places.iter().any(|(_, scope)| *scope == job.target) {
                    let name = format!("{} (not in the target picker)", job.target);
                    places.push((name, job.target.as_str()));
                }
            }
            // Replays are one line under the deposit they repeat, not a job each.
            let replays = replays_by_original(&d.jobs.iter().map(|(j, _)| j).collect::<Vec<_>>());
            let folded: HashSet<i64> = replays.values().flatten().copied().collect();
            for (name, scope) in places {
                let jobs: Vec<_> = d
                    .jobs
                    .iter()
                    .filter(|(j, _)| j.target == scope && !folded.contains(&j.id))
                    .collect();
                if jobs.is_empty() {
                    continue;
                }
                ui.label(RichText::new(name).strong());
                for (job, events) in jobs {
                    // A header does not wrap, and the panel grows to fit what it holds: an
                    // error (often a long sentence with a URL) goes under the header, where
                    // it wraps, so the panel keeps its width and the table its room.
                    let outcome = job
                        .identifier
                        .as_deref()
                        .map(|i| format!(": {}", crate::wording::short_identifier(i)))
                        .unwrap_or_default();
                    // A deposit of what the folder held before its last scan: its record
                    // is not of the dataset as it is now.
                    let earlier = match app.model.row(id).and_then(|row| row.key) {
                        Some(current) if current != job.key => " · earlier content",
                        _ => "",
                    };
                    let dismissed = match job.dismissed_at {
                        Some(_) => " · dismissed",
                        None => "",
                    };
                    // A copy's (the same key): one deposit for both.
                    let copys = copy_of(job, id);
                    let shared = match &copys {
                        Some(name) => format!(" · with {name}"),
                        None => String::new(),
                    };
                    let header = format!(
                        "Job {} · {}{dismissed} · {}{earlier}{shared}{outcome}",
                        job.id,
                        job.state.as_str(),
                        count_of(job.attempts_in_all(), "attempt", "attempts")
                    );
                    egui::CollapsingHeader::new(wrapped_header(ui, header))
                        .id_salt(("job", job.id))
                        .show(ui, |ui| {
                            for e in events {
                                ui.label(
                                    RichText::new(format!(
                                        "{} {:15} {}",
                                        app.clock.time(e.at),
                                        e.kind.as_str(),
                                        app.model.readable(&e.message)
                                    ))
                                    .monospace()
                                    .size(11.0),
                                );
                            }
                        });
                    if let Some(error) = job
                        .last_error
                        .as_deref()
                        .filter(|_| job.identifier.is_none())
                    {
                        ui.label(
                            RichText::new(app.model.readable(error))
                                .color(ui.visuals().warn_fg_color),
                        );
                    }
                    if let Some(again) = replays.get(&job.id) {
                        ui.label(RichText::new(replayed_since(again)).weak());
                    }
                    retry_elsewhere(app, ui, id, job, &d.jobs);
                    if let Some(identifier) = job.identifier.as_deref() {
                        // Cited with the row's metadata when the record is of its current key.
                        let of_this_key = app
                            .model
                            .row(id)
                            .filter(|row| row.key == Some(job.key) && job.state.is_landed());
                        // A draft is not public: nothing to cite until it is published.
                        let draft = app.model.is_draft(&job.target, Some(identifier));
                        if draft && job.state.is_landed() {
                            super::badge::draft_note(ui);
                        }
                        let cite = of_this_key.filter(|_| !draft).map(|row| {
                            let url = (app.model.public_url(&job.target, identifier))
                                .or(job.url.as_deref());
                            citation(&row.metadata, identifier, url)
                        });
                        // Named by the title at the job's key: known for the row's own key.
                        let folder = of_this_key.and_then(|row| {
                            app.model
                                .dataset_folder(&job.target, &job.key, &row.metadata.title)
                        });
                        let landed = job.state.is_landed();
                        // Offered once a check found it damaged, where lost files can be
                        // sent again.
                        let repairable = landed
                            && (app.model.damage(&job.key, &job.target))
                                .is_some_and(|found| app.model.repair_mends(&job.target, found));
                        // A copy's deposit is checked from the copy's own details, which
                        // a check's log joins; a removed copy's, from the command line.
                        if let (true, Some(name)) = (landed, &copys) {
                            let from = match job.dataset_id.and_then(|d| app.model.row(d)) {
                                Some(_) => format!("from {name}'s details"),
                                None => format!("with `lodge verify {id}`"),
                            };
                            ui.label(
                                RichText::new(format!("Deposited through {name}: checked {from}"))
                                    .weak(),
                            );
                        }
                        let checks = Checks {
                            running: app.model.check_running(&CheckOf::Deposit(job.id)),
                            verify: landed && copys.is_none(),
                            read_back: landed
                                && copys.is_none()
                                && app.model.keeps_files(&job.target),
                            repair: repairable && copys.is_none(),
                            elsewhere: (!app.model.has_target(&job.target)).then(|| {
                                format!(
                                    "{} is not one of this window's targets, so the window \
                                     cannot ask it: add it in Settings, under Targets, or run \
                                     `lodge verify {}` (with its token, if it takes one)",
                                    job.target,
                                    job.dataset_id
                                        .map_or("--all".to_string(), |d| d.to_string())
                                )
                            }),
                        };
                        let record = Record {
                            identifier,
                            // A draft published since: its public page, not the draft's
                            // (its owner's, behind a login on Zenodo).
                            url: (app.model.public_url(&job.target, identifier))
                                .or(job.url.as_deref()),
                            cite,
                            folder,
                        };
                        match record_buttons(ui, record, checks) {
                            Some(Check::Verify(read)) => {
                                app.send(Command::VerifyDeposit { job: job.id, read })
                            }
                            Some(Check::Repair) => app.send(Command::RepairDeposit { job: job.id }),
                            Some(Check::OpenRecord(url)) => app.send(Command::OpenRecord(url)),
                            None => {}
                        }
                        if let Some(&(done, total)) = app.model.reading_back.get(&job.id) {
                            ui.add(
                                egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                                    .desired_width(280.0)
                                    .text(format!(
                                        "Reading back {} of {}",
                                        human_bytes(done),
                                        human_bytes(total)
                                    )),
                            );
                        }
                    }
                }
            }
        });
}

/// A collapsing header's text laid out to wrap within `ui` (a header's own text does not
/// wrap: a long one, a copy's name or an identifier, ran past the panel's edge).
fn wrapped_header(ui: &egui::Ui, text: String) -> egui::WidgetText {
    let room = ui.available_width() - ui.spacing().indent - ui.spacing().button_padding.x;
    let galley = egui::WidgetText::from(text).into_galley(
        ui,
        Some(egui::TextWrapMode::Wrap),
        room.max(40.0),
        egui::TextStyle::Button,
    );
    egui::WidgetText::Galley(galley)
}

/// When `job` is not dataset `id`'s own but a copy's with the same key (one deposit for
/// both): that copy's name, or "a removed copy" once it was taken off the list.
fn copy_of(job: &JobRow, id: i64) -> Option<String> {
    (job.dataset_id != Some(id)).then(|| match (job.dataset_id, &job.dataset_name) {
        (Some(_), Some(name)) => name.clone(),
        _ => "a removed copy".to_string(),
    })
}

/// Which checks of a deposit its buttons offer.
struct Checks {
    /// A check of this deposit asked earlier is still running: its buttons wait.
    running: bool,
    verify: bool,
    /// Verify bytes: not where the target keeps no files (nothing to read back).
    read_back: bool,
    repair: bool,
    /// Why the window cannot ask the target (a deposit made from the command line to a
    /// target the window does not have): Verify is shown greyed out, saying so.
    elsewhere: Option<String>,
}

/// What a person asked of a deposit's buttons that the service does: a check, or the
/// record opened in the browser.
enum Check {
    /// By sizes, or every byte read back.
    Verify(ReadBack),
    Repair,
    OpenRecord(String),
}

/// What the buttons under a deposit that landed can copy or open.
struct Record<'a> {
    identifier: &'a str,
    url: Option<&'a str>,
    /// The citation, for a deposit of the dataset's current key.
    cite: Option<String>,
    /// Its folder's address, on a target that keeps a folder per dataset.
    folder: Option<String>,
}

/// Under a deposit that landed: its identifier, link, citation and folder to the clipboard
/// (for a paper's references or its data availability statement), the record in the
/// browser, and (`checks`) a check that the server still holds it and the repair of what it
/// lost. What was clicked that the service does.
fn record_buttons(ui: &mut egui::Ui, record: Record<'_>, checks: Checks) -> Option<Check> {
    let Record {
        identifier,
        url,
        cite,
        folder,
    } = record;
    let mut clicked = None;
    ui.horizontal_wrapped(|ui| {
        if let Some(cite) = cite
            && ui
                .small_button("Copy citation")
                .on_hover_text(&cite)
                .clicked()
        {
            ui.ctx().copy_text(cite);
        }
        if ui
            .small_button("Copy identifier")
            .on_hover_text(identifier)
            .clicked()
        {
            ui.ctx().copy_text(identifier.to_string());
        }
        if let Some(url) = url {
            if ui.small_button("Copy link").on_hover_text(url).clicked() {
                ui.ctx().copy_text(url.to_string());
            }
            if ui.small_button("Open record").on_hover_text(url).clicked() {
                clicked = Some(Check::OpenRecord(url.to_string()));
            }
        }
        if let Some(folder) = folder
            && ui
                .small_button("Copy folder")
                .on_hover_text(format!("The dataset's files are in {folder}"))
                .clicked()
        {
            ui.ctx().copy_text(folder);
        }
        if let Some(why) = checks.elsewhere.as_deref().filter(|_| checks.verify) {
            ui.add_enabled(false, egui::Button::new("Verify").small())
                .on_disabled_hover_text(why);
            return;
        }
        if checks.running && (checks.verify || checks.read_back || checks.repair) {
            ui.add_enabled(false, egui::Button::new("Checking…").small())
                .on_disabled_hover_text(
                    "This deposit is being checked (or repaired): a notice says what was found \
                     when it is done",
                );
            return;
        }
        let what = if checks.read_back {
            "Ask the server whether it still holds this deposit whole: the record, and every \
             file at its size."
        } else {
            "Ask the server whether it still holds this record (it keeps no files)."
        };
        if checks.verify
            && ui
                .small_button("Verify")
                .on_hover_text(format!(
                    "{what} Changes nothing there; the finding goes into the log."
                ))
                .clicked()
        {
            clicked = Some(Check::Verify(ReadBack::Sizes));
        }
        if checks.read_back
            && ui
                .small_button("Verify bytes")
                .on_hover_text(
                    "As Verify, and read every file back to compare its SHA-256 with the \
                     scan's: finds a file replaced by other bytes of the same size. Downloads \
                     the whole deposit.",
                )
                .clicked()
        {
            clicked = Some(Check::Verify(ReadBack::Bytes));
        }
        if checks.repair
            && ui
                .small_button("Repair")
                .on_hover_text(
                    "Send again, from the dataset's folder, the files the server lost (on \
                     S3 and WebDAV its record too, under the name it had). Conditional \
                     writes add only what is missing; a record still there stays as it is. \
                     Then check again.",
                )
                .clicked()
        {
            clicked = Some(Check::Repair);
        }
    });
    clicked
}
