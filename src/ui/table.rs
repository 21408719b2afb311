//! The datasets table: search, status filter, sortable columns, and one virtualised row per
//! dataset (only the visible rows are built) with its dedup badge and row actions.

use egui::RichText;
use egui_extras::{Column, TableBuilder};

use super::{LodgeApp, badge, format};
use crate::app::{CheckOf, Command, DedupStatus, Model, StatusKind};
use crate::wording::count_of;

pub const ROW_HEIGHT: f32 = 26.0;

/// A name that orders its runs of digits by number ("run2" before "run10").
#[derive(PartialEq, Eq)]
struct NaturalKey(String);

impl Ord for NaturalKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        alphanumeric_sort::compare_str(&self.0, &other.0)
    }
}

impl PartialOrd for NaturalKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The column a table is sorted by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SortBy {
    #[default]
    Added,
    Name,
    Files,
    Size,
    Status,
}

/// What the table remembers between frames, including its cached row order.
#[derive(Default)]
pub struct TableState {
    pub search: String,
    pub filter: Option<StatusKind>,
    pub sort: SortBy,
    pub descending: bool,
    /// Row ids in display order, rebuilt only when the model or the view settings change.
    pub order: Vec<i64>,
    /// Datasets "Deposit all ready" would queue, new ones and new versions of deposited ones
    /// (every one, shown or not: the top bar's button is for all): rebuilt with `order`.
    pub ready_ids: Vec<i64>,
    /// How many of `ready_ids` the search or the status filter hides.
    pub ready_hidden: usize,
    /// Rows shown whose folders changed since their scan: what "Rescan changed", beside
    /// the list, rescans.
    pub changed_ids: Vec<i64>,
    /// Rows shown deposited on the chosen target (whole, or found damaged): what "Verify
    /// deposited", beside the list, checks.
    pub landed_ids: Vec<i64>,
    /// How many deposits `landed_ids` hold: copies of a folder (one key) share one.
    pub landed_count: usize,
    /// Failed deposits to the chosen target, each once (copies that share one count one).
    pub failed_count: usize,
    pub any_waiting: bool,
    built_for: Option<(u64, String, Option<StatusKind>, SortBy, bool, String)>,
    pub focus_search: bool,
    /// A row (index in `order`) to bring into view: one the keyboard selected.
    pub scroll_to: Option<usize>,
}

impl TableState {
    /// Rebuild the order and counts if the model or the view settings changed.
    pub fn refresh(&mut self, model: &Model, target: &str) {
        let stamp = (
            model.version,
            self.search.clone(),
            self.filter,
            self.sort,
            self.descending,
            target.to_string(),
        );
        if self.built_for.as_ref() == Some(&stamp) {
            return;
        }
        let needle = self.search.trim().to_lowercase();
        let mut rows: Vec<(i64, StatusKind, &crate::app::DatasetEntry)> = Vec::new();
        self.ready_ids.clear();
        self.ready_hidden = 0;
        self.changed_ids.clear();
        self.landed_ids.clear();
        self.failed_count = 0;
        let mut failed_jobs = std::collections::HashSet::new();
        let mut landed_keys = std::collections::HashSet::new();
        self.any_waiting = false;
        for r in model.rows() {
            let status = model.status(r, target);
            let kind = status.kind();
            // A new version (the dataset's files or metadata changed since it was deposited
            // here) is as ready as a new dataset: `lodge deposit --all` sends it too.
            let ready = r.id > 0
                && match &status {
                    DedupStatus::New { ready } => *ready,
                    DedupStatus::NewVersion { .. } => r.key.is_some() && r.problems.is_empty(),
                    _ => false,
                };
            if ready {
                self.ready_ids.push(r.id);
            }
            if kind == StatusKind::Failed {
                // A copy's row reports its twin's job: one deposit, counted once.
                match model.deposit_job(r, target) {
                    Some(job) => failed_jobs.insert(job.id),
                    None => failed_jobs.insert(-r.id),
                };
            }
            self.any_waiting |= kind == StatusKind::WaitingToRetry;
            let shown =
                self.filter.is_none_or(|f| f == kind) && (needle.is_empty() || matches(r, &needle));
            if !shown {
                self.ready_hidden += usize::from(ready);
                continue;
            }
            if kind == StatusKind::ChangedSinceScan && r.id > 0 {
                self.changed_ids.push(r.id);
            }
            // Any record of it there, the current key's or an earlier one's (a row that reads
            // *New version* or *Changed since scan* still has its earlier record to check).
            let has_record = matches!(
                kind,
                StatusKind::Deposited | StatusKind::AlreadyDeposited | StatusKind::Damaged
            ) || r.jobs.get(target).is_some_and(|j| j.state.is_landed());
            if has_record && r.id > 0 {
                self.landed_ids.push(r.id);
                // One deposit a key: copies share theirs. (A row whose record is of an
                // earlier key has that key's.)
                let record_key = match kind {
                    StatusKind::Deposited | StatusKind::AlreadyDeposited | StatusKind::Damaged => {
                        r.key
                    }
                    _ => r.jobs.get(target).map(|j| j.key),
                };
                landed_keys.insert(record_key.map(|k| k.to_hex()).unwrap_or(r.id.to_string()));
            }
            rows.push((r.id, kind, r));
        }
        self.failed_count = failed_jobs.len();
        self.landed_count = landed_keys.len();
        match self.sort {
            SortBy::Added => rows.sort_by_key(|(id, _, _)| order_of_id(*id)),
            // Natural order, as a file manager shows folders: run2 before run10.
            SortBy::Name => rows.sort_by_cached_key(|(_, _, r)| NaturalKey(r.name.to_lowercase())),
            SortBy::Files => rows.sort_by_key(|(_, _, r)| r.file_count),
            SortBy::Size => rows.sort_by_key(|(_, _, r)| r.total_bytes),
            SortBy::Status => rows.sort_by_key(|(_, k, _)| *k),
        }
        if self.descending {
            rows.reverse();
        }
        self.order = rows.into_iter().map(|(id, _, _)| id).collect();
        self.built_for = Some(stamp);
    }
}

/// Stored datasets by id, then folders still being added.
fn order_of_id(id: i64) -> (bool, i64) {
    (id < 0, id.abs())
}

fn matches(r: &crate::app::DatasetEntry, needle: &str) -> bool {
    r.name.to_lowercase().contains(needle)
        || r.metadata.title.to_lowercase().contains(needle)
        || r.key.is_some_and(|k| k.to_hex().starts_with(needle))
}

/// While the store is not open (opening, or the start failed), say so in place of a view,
/// and whether it did.
pub fn said_not_ready(app: &LodgeApp, ui: &mut egui::Ui) -> bool {
    if app.model.ready {
        return false;
    }
    let text = match &app.model.start_error {
        Some(e) => format!("Lodge could not start: {e}"),
        None => "Opening the Lodge database…".to_string(),
    };
    ui.centered_and_justified(|ui| ui.label(RichText::new(text).size(18.0)));
    true
}

pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) {
    if said_not_ready(app, ui) {
        return;
    }
    if app.model.rows().is_empty() {
        empty_hint(ui);
        return;
    }
    toolbar(app, ui);
    ui.separator();
    if app.table.order.is_empty() {
        no_match(app, ui);
        return;
    }
    rows(app, ui);
}

/// In place of the rows when the search or the status filter leaves none: says so, with a
/// button that shows them all again (an empty table under a forgotten search read as an
/// empty list, a folder just added in it too).
fn no_match(app: &mut LodgeApp, ui: &mut egui::Ui) {
    let search = app.table.search.trim();
    let what = match (search.is_empty(), app.table.filter) {
        (false, Some(kind)) => format!("the search '{search}' with the status {}", kind.label()),
        (false, None) => format!("the search '{search}'"),
        (true, Some(kind)) => format!("the status {}", kind.label()),
        (true, None) => "what is shown".to_string(),
    };
    ui.vertical_centered(|ui| {
        ui.add_space(24.0);
        ui.label(format!("No dataset matches {what}."));
        if ui.button("Show all datasets").clicked() {
            app.table.search.clear();
            app.table.filter = None;
        }
    });
}

fn empty_hint(ui: &mut egui::Ui) {
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() * 0.3);
        ui.label(RichText::new("📂").size(48.0));
        ui.label(
            RichText::new("Drop dataset folders here")
                .size(24.0)
                .strong(),
        );
        ui.add_space(6.0);
        ui.label("or use Add folder… (Ctrl+O), or paste their paths (Ctrl+V).");
        ui.label("Lodge hashes each folder, gives it a content key, and deposits it");
        ui.label("exactly once, however often you press Deposit.");
        ui.add_space(6.0);
        ui.label(
            RichText::new(
                "Deposits go to the local sandbox by default: nothing leaves this computer.",
            )
            .weak(),
        );
    });
}

fn toolbar(app: &mut LodgeApp, ui: &mut egui::Ui) {
    // Wrapped: with the details open, or in a narrow window, the last buttons go onto a
    // second line rather than off the edge.
    ui.horizontal_wrapped(|ui| {
        // Each label with its field, so that a wrap never leaves "Status:" at the end of one
        // line and its choice at the start of the next.
        ui.horizontal(|ui| {
            let label = ui.label("Search:");
            let search = egui::TextEdit::singleline(&mut app.table.search)
                .hint_text("name, title or key (Ctrl+F)")
                .desired_width(260.0);
            let response = ui.add(search).labelled_by(label.id);
            if std::mem::take(&mut app.table.focus_search) {
                response.request_focus();
            }
        });
        ui.horizontal(|ui| {
            let l = ui.label("Status:");
            egui::ComboBox::from_id_salt("status_filter")
                .selected_text(app.table.filter.map_or("All", |k| k.label()))
                .show_ui(ui, |ui| {
                    super::pick(ui, &mut app.table.filter, None, "All");
                    for kind in StatusKind::ALL {
                        super::pick(ui, &mut app.table.filter, Some(kind), kind.label());
                    }
                })
                .response
                .labelled_by(l.id);
        });
        // Whole on one line (it went onto two, "39 of 329" and "datasets"): moved to the
        // next line when the bar's line has no room left for it.
        ui.add(
            egui::Label::new(format!(
                "{} of {}",
                app.table.order.len(),
                count_of(app.model.rows().len() as u64, "dataset", "datasets")
            ))
            .extend(),
        );
        // Always there, greyed out while no folder listed changed since its scan (most
        // weeks none has): appearing when a folder changes, it would wrap the bar of a
        // narrow window and move every row down under the pointer.
        let changed = app.table.changed_ids.clone();
        ui.separator();
        let rescan_changed = ui.add_enabled(
            !changed.is_empty(),
            egui::Button::new(format!("Rescan changed ({})", changed.len())),
        );
        let rescan_changed = if changed.is_empty() {
            rescan_changed.on_disabled_hover_text(
                "No dataset listed has a folder that changed since its last scan",
            )
        } else {
            rescan_changed.on_hover_text(
                "Scan again every dataset listed whose folder changed since its last scan, \
                 so that a deposit sends its files as they are now",
            )
        };
        if rescan_changed.clicked() {
            for id in changed {
                if let Some(entry) = app.model.row(id) {
                    app.send(rescan(entry));
                }
            }
        }
        // Shown whenever the list has datasets, greyed out while none listed has landed on
        // the chosen target: appearing with the first deposit, it would wrap the bar and
        // move every row down under the pointer.
        let landed = app.table.landed_ids.clone();
        if !app.model.rows().is_empty() {
            ui.separator();
            let on = CheckOf::Target(app.target_id().to_string());
            let verifying = app.model.check_running(&on);
            let verify = ui.add_enabled(
                !landed.is_empty() && !verifying,
                egui::Button::new(match verifying {
                    true => "Verifying…".to_string(),
                    false => format!("Verify deposited ({})", app.table.landed_count),
                }),
            );
            let verify = if verifying {
                verify.on_disabled_hover_text(
                    "The deposits on the chosen target are being checked: a notice says what \
                     was found when it is done",
                )
            } else if landed.is_empty() {
                verify.on_disabled_hover_text(
                    "None of the datasets listed has a deposit on the chosen target to check \
                     yet",
                )
            } else {
                verify.on_hover_text(
                    "Ask the chosen target whether it still holds each deposit of the \
                     datasets listed whole: the record, and every file at its size. Changes \
                     nothing there; one notice sums up, each finding goes into the log",
                )
            };
            if verify.clicked() {
                let target = app.target_id().to_string();
                app.send(Command::VerifyDatasets {
                    ids: landed,
                    target,
                });
            }
        }
    });
}

fn header_button(app: &mut LodgeApp, ui: &mut egui::Ui, title: &str, sort: SortBy) {
    let arrow = if app.table.sort == sort {
        if app.table.descending { " ⏷" } else { " ⏶" }
    } else {
        ""
    };
    let header = ui
        .add(egui::Button::new(RichText::new(format!("{title}{arrow}")).strong()).frame(false))
        .on_hover_text("Sort by this column");
    // Frameless, it shows no focus of its own: a keyboard's Tab onto it is drawn.
    if header.has_focus() {
        ui.painter().rect_stroke(
            header.rect.expand(1.0),
            2.0,
            ui.visuals().selection.stroke,
            egui::StrokeKind::Outside,
        );
    }
    if header.clicked() {
        if app.table.sort == sort {
            app.table.descending = !app.table.descending;
        } else {
            app.table.sort = sort;
            app.table.descending = false;
        }
    }
}

fn rows(app: &mut LodgeApp, ui: &mut egui::Ui) {
    let now = app.clock.now_ms();
    if app.table.any_waiting {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_secs(1));
    }
    let mut clicked: Option<i64> = None;
    let mut commands: Vec<Command> = Vec::new();
    let mut remove: Option<i64> = None;
    let target = app.target_id().to_string();
    let edits = app.details.unsaved_edits();
    // A click anywhere on a row selects it, on its text too: a selectable label would take
    // the click for itself (to select its text), and the row would not see it.
    ui.style_mut().interaction.selectable_labels = false;
    let shown = ShownColumns::for_width(ui.available_width(), ui.spacing().item_spacing.x);
    let status_width = shown.status_width(ui.available_width(), ui.spacing().item_spacing.x);
    let notices = app.notices.drawn();
    // Narrower than its columns (the smallest window, with the details open), the table
    // scrolls sideways rather than cutting off its last columns and their buttons.
    egui::ScrollArea::horizontal()
        .id_salt("datasets_sideways")
        .show(ui, |ui| {
            let mut table = TableBuilder::new(ui);
            if let Some(row) = app.table.scroll_to.take() {
                table = table.scroll_to_row(row, None);
            }
            table
                .id_salt("datasets")
                .striped(true)
                // Clicked, not focused: a row's cells as Tab stops (five a row, before its
                // buttons) drew no focus; Up and Down move through the rows.
                .sense(egui::Sense::CLICK)
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                // Name and Status share what the fixed columns leave, the status first taking
                // its room, so that with the details panel open the actions still fit and
                // the status reads whole (its full text is also on hover).
                .column(Column::remainder().at_least(NAME_WIDTH).clip(true))
                .columns(Column::exact(FILES_WIDTH), shown.files_and_size as usize)
                .columns(Column::exact(SIZE_WIDTH), shown.files_and_size as usize)
                .columns(Column::exact(KEY_WIDTH), shown.key as usize)
                .column(Column::exact(status_width).clip(true))
                .column(Column::exact(ACTIONS_WIDTH).clip(true))
                .header(24.0, |mut h| {
                    h.col(|ui| header_button(app, ui, "Name", SortBy::Name));
                    if shown.files_and_size {
                        h.col(|ui| header_button(app, ui, "Files", SortBy::Files));
                        h.col(|ui| header_button(app, ui, "Size", SortBy::Size));
                    }
                    if shown.key {
                        h.col(|ui| {
                            ui.strong("Content key");
                        });
                    }
                    h.col(|ui| header_button(app, ui, "Status", SortBy::Status));
                    h.col(|ui| {
                        ui.strong("Actions");
                    });
                })
                .body(|mut body| {
                    let rows = app.table.order.len();
                    if let Some(notices) = notices {
                        room_below_the_rows(body.ui_mut(), rows, ROW_HEIGHT, notices);
                    }
                    body.rows(ROW_HEIGHT, rows, |mut row| {
                        let id = app.table.order[row.index()];
                        let Some(entry) = app.model.row(id) else {
                            return;
                        };
                        let status = app.model.status(entry, &target);
                        row.set_selected(app.selected == Some(id));
                        row.col(|ui| {
                            let title = if entry.metadata.title.is_empty() {
                                "(no title yet)"
                            } else {
                                &entry.metadata.title
                            };
                            // The folder too: two datasets may share a name.
                            ui.label(&entry.name)
                                .on_hover_text(format!("{title}\n{}", entry.path));
                            // Edits waiting in its details, unsaved, since another row was
                            // selected: seen here, not only when the window is closed.
                            let edited = edits
                                .get(&id)
                                .is_some_and(|(metadata, _)| *metadata != entry.metadata);
                            if edited {
                                ui.weak(EDITED_MARK).on_hover_text(
                                    "Its metadata has edits not saved: select it to save them \
                                     (or drop them) in its details",
                                );
                            }
                        });
                        if shown.files_and_size {
                            // A folder being added has no scan yet: its counts are not known,
                            // and a "0" would read as an empty folder. (A rescan shows the
                            // last scan's, as it keeps its key.)
                            let unscanned = entry.hashing.is_some() && entry.key.is_none();
                            row.col(|ui| match unscanned {
                                true => {
                                    ui.weak("—");
                                }
                                false => {
                                    ui.label(entry.file_count.to_string());
                                }
                            });
                            row.col(|ui| match unscanned {
                                true => {
                                    ui.weak("—");
                                }
                                false => {
                                    ui.label(format::bytes(entry.total_bytes));
                                }
                            });
                        }
                        if shown.key {
                            row.col(|ui| match entry.key {
                                Some(key) => format::content_key(ui, &key),
                                None => {
                                    ui.weak("—");
                                }
                            });
                        }
                        row.col(|ui| {
                            badge::show(ui, &status, now);
                            let landed = matches!(
                                status.kind(),
                                StatusKind::Deposited
                                    | StatusKind::AlreadyDeposited
                                    | StatusKind::Damaged
                            );
                            if landed && app.model.is_draft(&target, status.record_identifier()) {
                                badge::draft_note(ui);
                            }
                            if let Some((copy, _)) = app.model.copy_deposit(entry, &target) {
                                badge::shared_note(ui, &copy.name);
                            }
                            if landed && app.model.folder_gone(entry.id) {
                                badge::folder_missing_note(ui, &entry.path);
                            }
                            if status.kind() == StatusKind::NewVersion && !entry.problems.is_empty()
                            {
                                badge::incomplete_note(ui, entry.problems.len());
                            }
                        });
                        row.col(|ui| {
                            let edits = edits.get(&entry.id);
                            let (status, target) = (&status, target.as_str());
                            let row = Row {
                                entry,
                                job: app.model.deposit_job(entry, target),
                                status,
                                target,
                                edits,
                            };
                            actions(ui, &row, &mut commands, &mut remove);
                        });
                        if row.response().clicked() {
                            clicked = Some(id);
                        }
                    });
                });
        });
    let mut edit = false;
    for c in commands {
        if let Command::LoadDetails { id } = c {
            // A refused row's Edit: its details open at their top, where the refusal's cause
            // is, even when it was selected and its details scrolled down already.
            clicked = Some(id);
            edit = true;
        } else {
            app.send(c);
        }
    }
    if let Some(id) = clicked {
        app.select(Some(id));
        if edit {
            app.details.to_the_top();
        }
    }
    if let Some(id) = remove {
        super::dialogs::ask_remove(app, id);
    }
}

/// The gap kept between the last row and the notices above which it scrolls.
const CLEAR_OF_NOTICES: f32 = 8.0;

/// Notices float over a table's bottom right, where the rows' buttons are: while they
/// show (`notices`, where they were drawn), the body of `rows` rows of `row_height`, in
/// `ui`, scrolls on past its last row by as much as they cover of it, so that at its end
/// every row's buttons are clear of them. (The rows below the visible ones are not built:
/// their height is reckoned, as the table reckons it.) The datasets' table and the
/// history's both use it.
pub(super) fn room_below_the_rows(
    ui: &mut egui::Ui,
    rows: usize,
    row_height: f32,
    notices: egui::Rect,
) {
    let covered = ui.clip_rect().bottom() - notices.top();
    if covered <= 0.0 {
        return;
    }
    let row_pitch = row_height + ui.spacing().item_spacing.y;
    let last_row_end = ui.max_rect().top() + rows as f32 * row_pitch;
    ui.expand_to_include_y(last_row_end + covered + CLEAR_OF_NOTICES);
}

/// A failed deposit's buttons: *Retry*, which re-queues the same job with the same key. With
/// edits in the details not saved, that deposit is not what the form says, so the buttons
/// say which is sent: *Retry as saved* (the same key, the edits left out; the row's just
/// *Retry*, beside the other) and *Deposit edits* (saved first, a new key and job; the
/// failed one stays in the history). The details add *Dismiss*, which gives up on it.
///
/// `job` is the failed deposit ([`crate::app::Model::deposit_job`]): the row's own, or the
/// one a copy with the same key queued for both.
pub(super) fn failed_actions(
    ui: &mut egui::Ui,
    entry: &crate::app::DatasetEntry,
    job: Option<&crate::store::JobRow>,
    edits: Option<&(crate::content::Metadata, Vec<crate::content::FieldProblem>)>,
    target: &str,
    small: bool,
) -> Option<Command> {
    let button = |text: &str| {
        let b = egui::Button::new(text);
        if small { b.small() } else { b }
    };
    let edited = edits.filter(|(metadata, _)| *metadata != entry.metadata);
    let mut command = None;
    // The row's buttons are small and plain; the details' carry the icon.
    let (label, hover) = match (edited, small) {
        (None, true) => (RETRY, "Re-queue with the same key (Ctrl+R)"),
        (None, false) => (
            "⟳ Retry",
            "Re-queue this deposit with the same key (Ctrl+R)",
        ),
        // The row's says only "Retry": beside "Deposit edits" it reads as the other
        // choice, and "Retry as saved" pushed the row's 🗑 under the details panel of
        // the smallest window (the details, open while there are edits, say it whole).
        (Some(_), _) => (
            if small { RETRY } else { "⟳ Retry as saved" },
            "Re-queue this deposit with the same key, as it was saved: the edits in the \
             details are not sent with it (Ctrl+R). Deposit edits sends them instead.",
        ),
    };
    if ui.add(button(label)).on_hover_text(hover).clicked()
        && let Some(job) = job
    {
        command = Some(Command::Retry { jobs: vec![job.id] });
    }
    // In the details only: giving up is rarer than retrying, and the row has no room.
    if !small && let Some(dismiss) = dismiss_button(ui, job, false) {
        command = Some(dismiss);
    }
    if edited.is_some() {
        let deposit = LodgeApp::deposit_command(entry, edits, target);
        let why_not = deposit.as_ref().err().cloned().unwrap_or_default();
        let clicked = ui
            .add_enabled(deposit.is_ok(), button("Deposit edits"))
            .on_hover_text(
                "Save the edits (the dataset gets a new key) and deposit that; the failed \
                 deposit stays in the history",
            )
            .on_disabled_hover_text(why_not)
            .clicked();
        if clicked {
            command = deposit.ok();
        }
    }
    command
}

/// The details' *Dismiss* under a failed or refused deposit: gives up on it (a target gone
/// for good, say), so the row no longer shows it. The History keeps it.
pub(super) fn dismiss_button(
    ui: &mut egui::Ui,
    job: Option<&crate::store::JobRow>,
    refused: bool,
) -> Option<Command> {
    let hover = if refused {
        "Give up on this deposit (a target you no longer send to, say): the row no longer \
         shows it refused. The History keeps it; Deposit sends the dataset again."
    } else {
        "Give up on this deposit (a target gone for good, say): the row no longer shows it \
         failed and Retry all failed leaves it. The History keeps it; its Retry there queues \
         it again with the same key."
    };
    let clicked = ui.button("Dismiss").on_hover_text(hover).clicked();
    let job = job.filter(|_| clicked)?;
    Some(Command::Dismiss { jobs: vec![job.id] })
}

/// The datasets table's narrowest widths, per column.
/// Beside the name of a dataset whose details hold edits not saved.
pub const EDITED_MARK: &str = "✏";

const NAME_WIDTH: f32 = 100.0;
const FILES_WIDTH: f32 = 50.0;
const SIZE_WIDTH: f32 = 80.0;
const KEY_WIDTH: f32 = 130.0;
const STATUS_WIDTH: f32 = 150.0;
const ACTIONS_WIDTH: f32 = 250.0;
/// The room the status column is given before an optional column is: a badge with its
/// record (`♻ Already deposited · sbx-000123`) and a note beside it (`(as draft)`, `(with
/// soil-cores)`) read whole, not cut.
const STATUS_ROOM: f32 = 300.0;

/// Which of the table's optional columns fit. In a narrow window (the details panel open
/// beside it) the content key goes first, since the details show it whole, then the files
/// and size: the name, the status and the actions stay, which is what a person acts on,
/// and the status keeps [`STATUS_ROOM`] before either is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShownColumns {
    key: bool,
    files_and_size: bool,
}

impl ShownColumns {
    /// How wide the status column is in a table `width` wide with these columns shown: its
    /// [`STATUS_ROOM`] before the name gets more than its least (an even split cut a badge
    /// with a note, `(folder missing)`, beside the details), half of what the other columns
    /// leave in a wide window, and never under [`STATUS_WIDTH`].
    fn status_width(self, width: f32, spacing: f32) -> f32 {
        let mut fixed = ACTIONS_WIDTH + spacing;
        if self.files_and_size {
            fixed += FILES_WIDTH + SIZE_WIDTH + 2.0 * spacing;
        }
        if self.key {
            fixed += KEY_WIDTH + spacing;
        }
        // What the name and the status share, their spacing taken out.
        let rest = width - fixed - 2.0 * spacing;
        (rest / 2.0)
            .max((rest - NAME_WIDTH).min(STATUS_ROOM))
            .max(STATUS_WIDTH)
    }

    fn for_width(width: f32, spacing: f32) -> ShownColumns {
        let always = NAME_WIDTH + STATUS_ROOM + ACTIONS_WIDTH + 2.0 * spacing;
        let files_and_size = always + FILES_WIDTH + SIZE_WIDTH + 2.0 * spacing;
        let all = files_and_size + KEY_WIDTH + spacing;
        ShownColumns {
            key: width >= all,
            files_and_size: width >= files_and_size,
        }
    }
}

/// Scan a dataset's folder again and re-key it: its metadata saved as it is, which
/// rescans the folder (a row's Rescan, and the details' beside a *Changed since scan*).
pub(super) fn rescan(entry: &crate::app::DatasetEntry) -> Command {
    Command::SetMetadata {
        id: entry.id,
        metadata: Box::new(entry.metadata.clone()),
        then_deposit: None,
    }
}

/// One row of the table, for its actions: the dataset, its status on the chosen target,
/// and the edits not saved in its details form, if any.
struct Row<'a> {
    entry: &'a crate::app::DatasetEntry,
    /// Its deposit to the target ([`crate::app::Model::deposit_job`]).
    job: Option<&'a crate::store::JobRow>,
    status: &'a DedupStatus,
    target: &'a str,
    edits: Option<&'a (crate::content::Metadata, Vec<crate::content::FieldProblem>)>,
}

/// The row's buttons' labels (the details' carry longer ones).
const STOP: &str = "Stop";
const RETRY: &str = "Retry";
const RESCAN: &str = "Rescan";
const DEPOSIT: &str = "Deposit";
const EDIT: &str = "Edit";
const OPEN_RECORD: &str = "Open record";
const SHOW_FOLDER: &str = "📂";
const REMOVE: &str = "🗑";

/// Where each of a row's actions starts, from its cell's left edge, so that an action is at
/// the same x on every row that has it: a row without one leaves its room. From the left:
/// the status's own action (Deposit, Retry, Rescan or Stop) in the room of the widest of
/// them, *Open record*, 📂, 🗑. A refused deposit's *Edit* and *Deposit again* run on over
/// *Open record*'s room, which such a row never has (*Deposit again* keeps its place where
/// there is no Edit); a failed deposit's *Retry as saved* and *Deposit edits* over the 📂's
/// too, which gives way to them. A button that the ones before push past its place goes
/// right after them.
struct ActionPlaces {
    deposit_again: f32,
    record: f32,
    folder: f32,
    remove: f32,
}

impl ActionPlaces {
    /// The places for buttons as `ui` draws them (its font, its buttons' margins and the
    /// space between them), on whole points: a button that ends a fraction past where it
    /// was reckoned to (layout rounds) does not push the next one off its place.
    fn measure(ui: &egui::Ui) -> ActionPlaces {
        let room =
            |label: &str| (small_button_width(ui, label) + ui.spacing().item_spacing.x).ceil();
        let status = [DEPOSIT, RETRY, RESCAN, STOP]
            .map(room)
            .into_iter()
            .fold(0.0, f32::max);
        let folder = status + room(OPEN_RECORD);
        ActionPlaces {
            deposit_again: room(EDIT),
            record: status,
            folder,
            remove: folder + room(SHOW_FOLDER),
        }
    }
}

/// How wide a small button reading `label` is in `ui`: its text and its margins at the
/// sides.
fn small_button_width(ui: &egui::Ui, label: &str) -> f32 {
    let text = egui::WidgetText::from(label).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Body,
    );
    text.size().x + 2.0 * ui.spacing().button_padding.x
}

/// Lay out `add`'s buttons from `x` (a place, from the cell's left edge `left`), or right
/// after the buttons before when they reach past it.
fn at_place(ui: &mut egui::Ui, left: f32, x: f32, add: impl FnOnce(&mut egui::Ui)) {
    let mut room = ui.available_rect_before_wrap();
    room.min.x = (left + x).max(ui.cursor().left());
    room.max.x = room.max.x.max(room.min.x);
    let layout = egui::Layout::left_to_right(egui::Align::Center);
    ui.scope_builder(egui::UiBuilder::new().max_rect(room).layout(layout), add);
}

fn actions(
    ui: &mut egui::Ui,
    row: &Row<'_>,
    commands: &mut Vec<Command>,
    remove: &mut Option<i64>,
) {
    let Row {
        entry,
        job,
        status,
        target,
        edits,
    } = *row;
    // Closer together than egui's buttons usually are: with a place for each, a row's
    // actions still fit beside the details panel in the smallest window (800 wide).
    ui.spacing_mut().button_padding.x = 4.0;
    ui.spacing_mut().item_spacing.x = 4.0;
    let places = ActionPlaces::measure(ui);
    let left = ui.cursor().left();
    if let DedupStatus::Hashing { .. } = status {
        // The wrong folder dropped, or one far bigger than meant: no need to wait it out.
        let stop = ui
            .small_button(STOP)
            .on_hover_text("Stop hashing this folder; nothing of this scan is recorded");
        if stop.clicked() {
            commands.push(Command::StopHashing { row: entry.id });
        }
        return;
    }
    if entry.id < 0 {
        return;
    }
    match status {
        DedupStatus::Failed { .. } => {
            commands.extend(failed_actions(ui, entry, job, edits, target, true));
        }
        DedupStatus::ChangedSinceScan { .. } => {
            let button = ui
                .small_button(RESCAN)
                .on_hover_text("Scan the folder again and re-key it");
            if button.clicked() {
                commands.push(rescan(entry));
            }
        }
        DedupStatus::New { .. }
        | DedupStatus::NewVersion { .. }
        | DedupStatus::SameDataAsAnother { .. }
        | DedupStatus::TargetPaused { .. } => {
            // On a paused target, Deposit is how the user says they have acted: it lifts
            // the pause, and the queued job is sent.
            // Edits in the details not saved yet go with the deposit (saved first), or
            // hold it while they are not valid.
            let command = LodgeApp::deposit_command(entry, edits, target);
            let (ready, why_not) = match &command {
                Ok(Command::SetMetadata { .. }) => (entry.key.is_some(), String::new()),
                Ok(_) => (
                    entry.problems.is_empty() && entry.key.is_some(),
                    "Complete the metadata first (select the row)".to_string(),
                ),
                Err(why) => (false, why.clone()),
            };
            let saves_first = matches!(command, Ok(Command::SetMetadata { .. }));
            let deposit = ui
                .add_enabled(ready, egui::Button::new(DEPOSIT).small())
                .on_disabled_hover_text(why_not);
            // Edits held in its details (a draft, perhaps out of sight) go with it.
            let deposit = match saves_first {
                true => deposit.on_hover_text(
                    "Save the edits in its details (not saved yet), then deposit it with them",
                ),
                false => deposit,
            };
            if deposit.clicked()
                && let Ok(command) = command
            {
                commands.push(command);
            }
        }
        DedupStatus::Rejected { cause } => {
            // Waiting for a landing page (DataCite's `landing_from=`) is no metadata's fault:
            // no Edit, only Deposit again once the other deposit is made.
            if !crate::targets::datacite::waits_for_landing(cause) {
                let edit = ui
                    .small_button(EDIT)
                    .on_hover_text("Fix the metadata in the details panel, then deposit again");
                if edit.clicked() {
                    commands.push(Command::LoadDetails { id: entry.id });
                }
            }
            // A refusal that no metadata edit fixes (a DOI's landing page not deposited
            // yet, a repository's setting) is sent again once its cause is put right.
            if let Ok(command) = LodgeApp::deposit_command(entry, edits, target) {
                at_place(ui, left, places.deposit_again, |ui| {
                    let again = ui
                        .add_enabled(
                            entry.problems.is_empty(),
                            egui::Button::new("Deposit again").small(),
                        )
                        .on_hover_text(
                            "Send it again with the same key, once what the refusal names is \
                             put right (with the metadata unchanged, a refusal of the metadata \
                             comes back the same)",
                        );
                    if again.clicked() {
                        commands.push(command);
                    }
                });
            }
        }
        _ => {}
    }
    if let Some(url) = status.record_url() {
        at_place(ui, left, places.record, |ui| {
            if ui.small_button(OPEN_RECORD).on_hover_text(url).clicked() {
                // Through the service, which says so when no browser opens it (egui would
                // not).
                commands.push(Command::OpenRecord(url.to_string()));
            }
        });
    }
    // No folder to show when it is gone. A failed deposit with edits not saved has two
    // buttons for its retry, which take the folder's room (it is back once the edits are
    // saved or undone).
    let two_retries = matches!(status, DedupStatus::Failed { .. })
        && edits.is_some_and(|(metadata, _)| *metadata != entry.metadata);
    if !matches!(status, DedupStatus::FolderMissing { .. }) && !two_retries {
        at_place(ui, left, places.folder, |ui| {
            if ui
                .small_button(SHOW_FOLDER)
                .on_hover_text("Show folder")
                .clicked()
            {
                commands.push(Command::ShowFolder(entry.path.clone().into()));
            }
        });
    }
    at_place(ui, left, places.remove, |ui| {
        if ui
            .small_button(REMOVE)
            .on_hover_text("Remove from the list (Delete)")
            .clicked()
        {
            *remove = Some(entry.id);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_takes_its_room_before_the_name_takes_more_than_its_least() {
        let width = |table: f32| {
            let shown = ShownColumns::for_width(table, 8.0);
            shown.status_width(table, 8.0)
        };
        // Beside the details panel (a 1280-wide window): the name keeps its least.
        assert_eq!(width(826.0), STATUS_ROOM);
        // A full window: half of what the name and the status share.
        assert!(width(1264.0) > STATUS_ROOM, "{}", width(1264.0));
        // The smallest window with the details open: never under its least.
        assert_eq!(width(480.0), STATUS_WIDTH);
    }

    #[test]
    fn the_status_keeps_its_room_before_the_key_and_then_the_files_and_size_are_shown() {
        let shown = |width| ShownColumns::for_width(width, 8.0);
        // A full window: every column.
        assert_eq!(
            shown(1264.0),
            ShownColumns {
                key: true,
                files_and_size: true
            }
        );
        // Beside the details panel (a 1280-wide window): the key goes first.
        assert_eq!(
            shown(826.0),
            ShownColumns {
                key: false,
                files_and_size: true
            }
        );
        assert_eq!(
            shown(700.0),
            ShownColumns {
                key: false,
                files_and_size: false
            }
        );
    }
}
