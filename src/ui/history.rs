//! The history view: every deposit ever made from this store, across targets; search,
//! filters by status, target and date, export to CSV and JSON, links to the records, and
//! Retry for a failed job.

use std::collections::{HashMap, HashSet};

use egui::RichText;
use egui_extras::{Column, TableBuilder};

use super::LodgeApp;
use crate::app::{Command, ExportFormat, Model};
use crate::store::HistoryRow;
use crate::wording::count_of;

/// How far back the date filter reaches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Since {
    #[default]
    Any,
    Day,
    Week,
    Month,
}

impl Since {
    fn label(self) -> &'static str {
        match self {
            Since::Any => "Any time",
            Since::Day => "Last 24 hours",
            Since::Week => "Last 7 days",
            Since::Month => "Last 30 days",
        }
    }
    fn millis(self) -> Option<i64> {
        let day = 24 * 3600 * 1000;
        match self {
            Since::Any => None,
            Since::Day => Some(day),
            Since::Week => Some(7 * day),
            Since::Month => Some(30 * day),
        }
    }
}

const STATES: [&str; 8] = [
    "queued",
    "running",
    "waiting",
    "deposited",
    "existing",
    "failed",
    "rejected",
    "dismissed",
];

/// The state a job's row shows and the Status filter picks by: a failed or refused job a
/// person gave up on is *dismissed* (its hover says which it was).
fn shown_state(r: &HistoryRow) -> &str {
    match r.dismissed_at {
        Some(_) => "dismissed",
        None => &r.state,
    }
}

#[derive(Default)]
pub struct HistoryState {
    pub search: String,
    /// Ctrl+F was pressed in this view: its search takes the keyboard at the next frame.
    pub focus_search: bool,
    pub state: Option<&'static str>,
    pub target: Option<String>,
    pub since: Since,
    /// The model version the history was last asked for.
    requested_for: Option<u64>,
    /// When (input time, s) it was last asked for.
    requested_at: f64,
    /// The jobs the view showed at its last frame once its search or a filter narrows it
    /// (`None`: every job): what Export writes.
    shown: Option<Vec<i64>>,
}

impl HistoryState {
    /// Whether the search or a filter leaves out some jobs.
    fn narrows(&self) -> bool {
        !self.search.trim().is_empty()
            || self.state.is_some()
            || self.target.is_some()
            || self.since != Since::Any
    }
}

/// The target filter's choices, (scope, label): the picker's targets, then any other the
/// history holds (a URL used from the command line, a removed target), by its address.
fn target_choices(model: &Model) -> Vec<(String, String)> {
    let mut choices: Vec<(String, String)> = model
        .targets
        .iter()
        .map(|t| (t.scope_id.clone(), t.label.clone()))
        .collect();
    for r in model.history.iter().flatten() {
        if !choices.iter().any(|(scope, _)| *scope == r.target) {
            choices.push((r.target.clone(), r.target.clone()));
        }
    }
    choices
}

fn passes(app: &LodgeApp, r: &HistoryRow, needle: &str, now: i64) -> bool {
    let h = &app.history;
    h.state.is_none_or(|s| shown_state(r) == s)
        && h.target.as_ref().is_none_or(|t| &r.target == t)
        && h.since.millis().is_none_or(|ms| r.updated_at >= now - ms)
        && (needle.is_empty()
            || job_number(needle) == Some(r.job)
            || [
                r.name.as_deref(),
                r.title.as_deref(),
                r.identifier.as_deref(),
                Some(r.key.as_str()),
                r.queued_by.as_deref(),
                // The target as its column names it, and its URL.
                Some(app.model.target_label(&r.target)),
                Some(r.target.as_str()),
            ]
            .into_iter()
            .flatten()
            .any(|s| s.to_lowercase().contains(needle)))
}

/// The job a search names as the command line does, "#12" or "job 12"; a bare number is
/// searched as text (it may be part of a key or a record).
fn job_number(needle: &str) -> Option<i64> {
    let number = (needle.strip_prefix('#'))
        .or_else(|| needle.strip_prefix("job"))?
        .trim();
    number.parse().ok()
}

/// The height of a history row.
const HISTORY_ROW_HEIGHT: f32 = 22.0;

pub fn show(app: &mut LodgeApp, ui: &mut egui::Ui) {
    // No store, no history: not a "Loading" that never ends, nor exports that do nothing.
    if super::table::said_not_ready(app, ui) {
        return;
    }
    // Ask again when deposits changed since the last load, at most once a second (the
    // store answers off-thread).
    let now = ui.input(|i| i.time);
    if app.history.requested_for != Some(app.model.version) && app.model.ready {
        if now - app.history.requested_at >= 1.0 || app.history.requested_for.is_none() {
            app.history.requested_for = Some(app.model.version);
            app.history.requested_at = now;
            app.send(Command::LoadHistory);
        } else {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(1.0));
        }
    }
    toolbar(app, ui);
    ui.separator();
    let Some(rows) = app.model.history.as_ref() else {
        ui.label("Loading the history…");
        return;
    };
    let now = app.clock.now_ms();
    let needle = app.history.search.trim().to_lowercase();
    let shown: Vec<&HistoryRow> = rows
        .iter()
        .filter(|r| passes(app, r, &needle, now))
        .collect();
    // Export (drawn above, in the toolbar) writes these: once they change, draw again so
    // its count follows at once.
    let narrowed = app
        .history
        .narrows()
        .then(|| shown.iter().map(|r| r.job).collect::<Vec<_>>());
    if narrowed != app.history.shown {
        app.history.shown = narrowed;
        ui.ctx().request_repaint();
    }
    if shown.is_empty() {
        // Nothing at all yet, or nothing the search and filters let through.
        ui.label(match rows.len() {
            0 => "No deposits yet. Deposits appear here as soon as they are queued.".to_string(),
            1 => "The one job does not match the search and filters: clear them to see it."
                .to_string(),
            n => format!(
                "None of the {n} jobs matches the search and filters: clear them to see every \
                 one."
            ),
        });
        return;
    }
    // The job that landed each scope, if one did: a failed job of a scope that a later
    // deposit landed has nothing left to retry (the store would re-queue nothing).
    let landed: HashMap<(&str, &str), &HistoryRow> = rows
        .iter()
        .filter(|r| r.state == "deposited" || r.state == "existing")
        .map(|r| ((r.target.as_str(), r.key.as_str()), r))
        .collect();
    // The newest job of each scope: an older failed one deposited again since is retried
    // as that one (the store re-queues only the newest).
    let mut newest: HashMap<(&str, &str), &HistoryRow> = HashMap::new();
    for r in rows {
        let slot = newest
            .entry((r.target.as_str(), r.key.as_str()))
            .or_insert(r);
        if r.job > slot.job {
            *slot = r;
        }
    }
    let scopes = Scopes { landed, newest };
    let mut open: Option<String> = None;
    let mut retry: Option<i64> = None;
    let notices = app.notices.drawn();
    // Who queued each job is a column where more than one person or machine did (a shared
    // database): on one machine's own file it would repeat one name on every row.
    let queuers: HashSet<&str> = rows.iter().filter_map(|r| r.queued_by.as_deref()).collect();
    let by_column = queuers.len() > 1;
    // Narrower than its columns (the smallest window), the table scrolls sideways rather
    // than cutting off its last columns and their buttons. Its scroll bar is a solid one,
    // in sight: egui's floating bar shows only under the pointer, and the columns past the
    // edge would seem not to be there.
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::horizontal()
        .id_salt("history_sideways")
        .show(ui, |ui| {
            let mut table = TableBuilder::new(ui)
                .id_salt("history")
                .striped(true)
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                .column(Column::exact(50.0))
                .column(Column::initial(150.0).clip(true))
                .column(Column::remainder().at_least(120.0).clip(true))
                // Wide enough for a target used by URL (`sandbox+http://127.0.0.1:8080`):
                // two such differ only at their end, which a narrow column cuts off.
                .column(Column::initial(230.0).at_least(110.0).clip(true))
                .column(Column::exact(80.0))
                // Wide enough for an S3 or WebDAV record's short form
                // (`records/961f6abd154e….json`), which a narrower column cut to its key.
                .column(Column::exact(190.0).clip(true))
                .column(Column::exact(65.0))
                .column(Column::exact(130.0));
            if by_column {
                table = table.column(Column::initial(160.0).at_least(90.0).clip(true));
            }
            let titles = [
                "Job",
                "Dataset",
                "Title",
                "Target",
                "State",
                "Record",
                "Attempts",
                "Updated (UTC)",
                "Queued by",
            ];
            let titles = &titles[..titles.len() - usize::from(!by_column)];
            table
                .header(22.0, |mut h| {
                    for title in titles {
                        h.col(|ui| {
                            ui.strong(*title);
                        });
                    }
                })
                .body(|mut body| {
                    // The notices float over the last rows' Retry: room to scroll past them.
                    if let Some(notices) = notices {
                        super::table::room_below_the_rows(
                            body.ui_mut(),
                            shown.len(),
                            HISTORY_ROW_HEIGHT,
                            notices,
                        );
                    }
                    body.rows(HISTORY_ROW_HEIGHT, shown.len(), |mut row| {
                        let r = shown[row.index()];
                        row.col(|ui| {
                            ui.label(r.job.to_string());
                        });
                        row.col(|ui| match &r.name {
                            Some(name) => {
                                ui.label(name);
                            }
                            // Removed from the list: named as its removal logged it.
                            None => {
                                let name = r.dataset.and_then(|d| app.model.dataset_name(d));
                                ui.label(name.as_deref().unwrap_or("(removed)"));
                            }
                        });
                        row.col(|ui| {
                            ui.label(r.title.as_deref().unwrap_or(""));
                        });
                        row.col(|ui| {
                            let label = app.model.target_label(&r.target);
                            ui.label(label.split(" — ").next().unwrap_or(label))
                                .on_hover_text(label);
                        });
                        row.col(|ui| state_cell(app, ui, r));
                        row.col(|ui| {
                            record_cell(app, ui, r, &scopes, &mut open, &mut retry);
                        });
                        row.col(|ui| {
                            ui.label(r.attempts.to_string());
                        });
                        row.col(|ui| {
                            ui.label(app.clock.date_time(r.updated_at));
                        });
                        if by_column {
                            row.col(|ui| {
                                ui.label(r.queued_by.as_deref().unwrap_or(""));
                            });
                        }
                    });
                });
        });
    if let Some(url) = open {
        // Through the service, as the table's Open record: a signed link where the record
        // needs one, and a notice when no browser opens it (egui would say nothing).
        app.send(Command::OpenRecord(url));
    }
    if let Some(job) = retry {
        app.send(Command::Retry { jobs: vec![job] });
    }
}

fn toolbar(app: &mut LodgeApp, ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Search:");
        let search = ui
            .add(
                egui::TextEdit::singleline(&mut app.history.search)
                    .hint_text("dataset, target, record, #job…")
                    .desired_width(220.0),
            )
            .labelled_by(l.id)
            .on_hover_text(
                "Finds the jobs whose dataset, title, target, record, key or who queued it \
                 holds what is typed; #12 (or job 12) finds job 12. Ctrl+F comes here.",
            );
        if std::mem::take(&mut app.history.focus_search) {
            search.request_focus();
        }
        let l = ui.label("Status:");
        egui::ComboBox::from_id_salt("history_state")
            .selected_text(app.history.state.unwrap_or("All"))
            .show_ui(ui, |ui| {
                super::pick(ui, &mut app.history.state, None, "All");
                for s in STATES {
                    super::pick(ui, &mut app.history.state, Some(s), s);
                }
            })
            .response
            .labelled_by(l.id);
        let l = ui.label("Target:");
        let current = app
            .history
            .target
            .as_deref()
            .map(|t| {
                app.model
                    .target_label(t)
                    .split(" — ")
                    .next()
                    .unwrap_or(t)
                    .to_string()
            })
            .unwrap_or_else(|| "All".into());
        egui::ComboBox::from_id_salt("history_target")
            .selected_text(current)
            .show_ui(ui, |ui| {
                super::pick(ui, &mut app.history.target, None, "All");
                // Read while the list is open only: the history may hold many rows.
                for (scope, label) in target_choices(&app.model) {
                    super::pick(ui, &mut app.history.target, Some(scope), label);
                }
            })
            .response
            .labelled_by(l.id);
        let l = ui.label("Date:");
        egui::ComboBox::from_id_salt("history_since")
            .selected_text(app.history.since.label())
            .show_ui(ui, |ui| {
                for s in [Since::Any, Since::Day, Since::Week, Since::Month] {
                    super::pick(ui, &mut app.history.since, s, s.label());
                }
            })
            .response
            .labelled_by(l.id);
        // What the view shows is what is exported: a search or a filter narrows both.
        let count = app.history.shown.as_ref().map(Vec::len);
        let (shown, hover) = match count {
            None => (
                String::new(),
                "Every job of the history, to a file in the export folder".to_string(),
            ),
            Some(n) => (
                format!(" ({n} shown)"),
                format!(
                    "The {} the search and filters show, to a file in the export folder; \
                     clear them to export every job",
                    count_of(n as u64, "job", "jobs")
                ),
            ),
        };
        let some = count != Some(0);
        for (label, format) in [
            ("Export CSV", ExportFormat::Csv),
            ("Export JSON", ExportFormat::Json),
        ] {
            if ui
                .add_enabled(some, egui::Button::new(format!("{label}{shown}")))
                .on_hover_text(&hover)
                .clicked()
            {
                let jobs = app.history.shown.clone();
                app.send(Command::ExportHistory { format, jobs });
            }
        }
        if let Some(path) = app.model.last_export.clone()
            && let Some(dir) = path.parent()
            && ui
                .button("Show export folder")
                .on_hover_text(path.display().to_string())
                .clicked()
        {
            app.send(Command::ShowFolder(dir.to_path_buf()));
        }
    });
}

/// A job's state, and why it ended where it did on hover. A queued job whose target is
/// paused says *paused*: it waits for the person, not for its turn.
/// How a job that landed did, for its state's hover: "existing" alone does not say
/// whether anything was sent.
fn landed_how(r: &HistoryRow) -> Option<&'static str> {
    match (r.state.as_str(), r.attempts) {
        ("deposited", _) => Some("Created: the server made the record when this job sent it."),
        ("existing", 0) => Some(
            "Replayed: this deposit was recorded already (the same content to the same \
             target), so no request was sent.",
        ),
        ("existing", _) => Some(
            "Already there: the server said it holds this content, or a look-up found it \
             after an answer was lost. Its identifier was recorded; no second record was made.",
        ),
        _ => None,
    }
}

fn state_cell(app: &LodgeApp, ui: &mut egui::Ui, r: &HistoryRow) {
    let paused = app
        .model
        .paused_reason(&r.target)
        .filter(|_| r.state == "queued");
    // Given up on: still failed (or refused), and said to be out of the status.
    let (text, last_error) = match r.dismissed_at {
        Some(at) => (
            RichText::new(shown_state(r)),
            Some(format!(
                "{} {}, then dismissed (given up on) {}: {}. {}",
                if r.state == "failed" {
                    "Failed"
                } else {
                    "Refused"
                },
                r.last_error
                    .as_deref()
                    .map(|e| format!("({e})"))
                    .unwrap_or_default(),
                app.clock.date_time(at),
                // Retry all failed never took a refused job.
                if r.state == "failed" {
                    "the datasets list and Retry all failed leave it"
                } else {
                    "the datasets list leaves it"
                },
                match r.state.as_str() {
                    "failed" =>
                        "Where its Record offers Retry, that queues it again with \
                                 the same key.",
                    _ =>
                        "A new deposit of the dataset, once what was refused is fixed, \
                          sends it again.",
                }
            )),
        ),
        None => {
            // Landed, and found damaged since by a check: the history says so too (an
            // export of it would otherwise report a lost record as fine).
            let damaged = (matches!(r.state.as_str(), "deposited" | "existing"))
                .then(|| r.key.parse::<crate::content::ContentKey>().ok())
                .flatten()
                .and_then(|key| app.model.damage(&key, &r.target));
            let how = match landed_how(r) {
                Some(how) => Some(match &r.last_error {
                    Some(e) => format!("{how} Before that: {e}"),
                    None => how.to_string(),
                }),
                None => r.last_error.clone(),
            };
            match damaged {
                Some(found) => {
                    let (_, colour) = super::badge::style(crate::app::StatusKind::Damaged);
                    (
                        RichText::new(format!("{}, damaged", r.state)).color(colour),
                        Some(format!(
                            "The last check found it damaged on the server: {found}.{}",
                            how.map(|how| format!(" {how}")).unwrap_or_default()
                        )),
                    )
                }
                None => (RichText::new(&r.state), how),
            }
        }
    };
    match (paused, &last_error) {
        (Some(reason), _) => {
            let fix = if app.model.targets.iter().any(|t| t.scope_id == r.target) {
                crate::app::paused_target_fix(reason, &r.target)
            } else {
                "it is not one of the window's targets (it was used from the command line): \
                 deposit there again from the command line once that is fixed"
            };
            let (_, colour) = super::badge::style(crate::app::StatusKind::TargetPaused);
            // Short, for the column: the hover says it is queued, and why it waits.
            ui.label(RichText::new("⏸ paused").color(colour))
                .on_hover_text(format!(
                    "Queued, and waiting for you, not for its turn: {} is paused: {} Nothing \
                     is sent there until you act: {fix}.",
                    r.target,
                    crate::wording::sentence(reason)
                ))
        }
        (None, Some(e)) => ui.label(text).on_hover_text(e),
        (None, None) => ui.label(text),
    };
}

/// What the history knows of each scope (target and key): the job that landed it, if one
/// did, and its newest job.
struct Scopes<'a> {
    landed: HashMap<(&'a str, &'a str), &'a HistoryRow>,
    newest: HashMap<(&'a str, &'a str), &'a HistoryRow>,
}

/// The dataset's current key, when it changed (its metadata edited, or its folder scanned
/// again) since job `r` was queued under another one.
fn changed_since(app: &LodgeApp, r: &HistoryRow) -> Option<crate::content::ContentKey> {
    let now = app.model.row(r.dataset?)?.key?;
    (now.to_hex() != r.key).then_some(now)
}

/// A job's record: its identifier (a link when there is one), or for a failed job what
/// retries it: the Retry button (of the later job of its scope, when it was deposited again
/// since), the command when the window cannot reach its target, or the later job that
/// landed the same key.
fn record_cell(
    app: &LodgeApp,
    ui: &mut egui::Ui,
    r: &HistoryRow,
    scopes: &Scopes<'_>,
    open: &mut Option<String>,
    retry: &mut Option<i64>,
) {
    let scope = (r.target.as_str(), r.key.as_str());
    match (&r.identifier, &r.url) {
        (Some(id), Some(url)) => {
            let shown = crate::wording::short_identifier(id);
            if ui.link(shown.as_ref()).on_hover_text(url).clicked() {
                *open = Some(url.clone());
            }
        }
        (Some(id), None) => {
            ui.label(crate::wording::short_identifier(id).as_ref())
                .on_hover_text(id);
        }
        // A failed job is retried from here whatever target the picker shows, if the window
        // can reach its target.
        _ if r.state == "failed" => {
            let later = scopes.newest.get(&scope).filter(|n| n.job != r.job);
            if let Some(later) = scopes.landed.get(&scope) {
                ui.weak(format!("landed by job {}", later.job))
                    .on_hover_text(format!(
                        "Nothing to retry: job {} deposited the same key here since, as {}",
                        later.job,
                        later.identifier.as_deref().unwrap_or("?")
                    ));
            } else if let Some(now) = changed_since(app, r) {
                // `retry` would refuse it: what it was to send is no longer the dataset.
                let hex = now.to_hex();
                let then = match scopes.landed.get(&(r.target.as_str(), hex.as_str())) {
                    Some(landed) => format!(
                        "as it is now, job {} deposited it here since, as {}",
                        landed.job,
                        landed.identifier.as_deref().unwrap_or("?")
                    ),
                    None => "deposit it as it is now".to_string(),
                };
                ui.weak("changed since").on_hover_text(format!(
                    "Nothing to retry: {} changed since this job was queued (its metadata \
                     edited, or its folder scanned again), and its key with it ({}, now {}): \
                     {then}.",
                    r.name.as_deref().unwrap_or("the dataset"),
                    &r.key[..12.min(r.key.len())],
                    now.short()
                ));
            } else if r.name.is_none() {
                // `retry` would refuse it: removing the dataset said not to deposit it.
                ui.weak("removed").on_hover_text(
                    "Nothing to retry: its dataset was removed from the list. Add its folder \
                     again and deposit it to send it.",
                );
            } else if let Some(later) = later {
                // Deposited again since: that job is the one to retry, or it is on its way.
                let reachable = app.model.targets.iter().any(|t| t.scope_id == r.target);
                if later.state == "failed" && reachable {
                    let button = ui
                        .small_button(format!("Retry job {}", later.job))
                        .on_hover_text(format!(
                            "Deposited again since as job {}, which failed too: this \
                             re-queues that one with the same key",
                            later.job
                        ));
                    if button.clicked() {
                        *retry = Some(later.job);
                    }
                } else {
                    ui.weak(format!("job {} {}", later.job, later.state))
                        .on_hover_text(format!(
                            "Deposited again since as job {} ({}): that job is the one to \
                             follow{}",
                            later.job,
                            later.state,
                            match later.state.as_str() {
                                "failed" => format!(", with `lodge retry {}`", later.job),
                                _ => String::new(),
                            }
                        ));
                }
            } else if app.model.targets.iter().any(|t| t.scope_id == r.target) {
                let button = ui
                    .small_button("Retry")
                    .on_hover_text("Re-queue it with the same key");
                if button.clicked() {
                    *retry = Some(r.job);
                }
            } else {
                // Selectable, to copy the command.
                let command = format!("lodge retry {}", r.job);
                ui.add(egui::Label::new(RichText::new(command).weak().monospace()))
                    .on_hover_text(format!(
                        "{} is not one of the window's targets (it was used from the command \
                         line): `lodge retry {}` retries it there",
                        r.target, r.job
                    ));
            }
        }
        _ => {
            ui.weak("—");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::TargetInfo;

    fn job_to(target: &str, job: i64) -> HistoryRow {
        HistoryRow {
            job,
            dataset: Some(1),
            name: Some("ds".into()),
            title: None,
            target: target.into(),
            key: "a".repeat(64),
            state: "deposited".into(),
            identifier: None,
            url: None,
            attempts: 1,
            last_error: None,
            created_at: 0,
            updated_at: 0,
            dismissed_at: None,
            queued_by: Some("ada@lab-1".into()),
        }
    }

    #[test]
    fn a_search_names_a_job_by_hash_or_job_and_its_number() {
        assert_eq!(job_number("#12"), Some(12));
        assert_eq!(job_number("job 12"), Some(12));
        assert_eq!(job_number("job12"), Some(12));
        assert_eq!(job_number("12"), None, "a bare number is text");
        assert_eq!(job_number("#x"), None);
        assert_eq!(job_number("jobs"), None);
    }

    #[test]
    fn a_landed_jobs_hover_says_whether_it_was_replayed_found_or_created() {
        let row = |state: &str, attempts: u32| HistoryRow {
            state: state.into(),
            attempts,
            ..job_to("sandbox+http://127.0.0.1:1", 1)
        };
        assert!(
            landed_how(&row("existing", 0))
                .unwrap()
                .starts_with("Replayed")
        );
        assert!(
            landed_how(&row("existing", 2))
                .unwrap()
                .starts_with("Already there")
        );
        assert!(
            landed_how(&row("deposited", 1))
                .unwrap()
                .starts_with("Created")
        );
        assert_eq!(landed_how(&row("failed", 8)), None);
    }

    #[test]
    fn the_target_filter_offers_targets_only_the_history_knows_once_each_after_the_picker() {
        let mut model = Model::default();
        model.targets = vec![TargetInfo {
            scope_id: "sandbox+http://127.0.0.1:1".into(),
            label: "Local sandbox — test deposits".into(),
            puts_back_files: true,
            repairs_sizes: false,
            repairs_records: false,
            keeps_files: true,
            makes_drafts: false,
            datasets_base: None,
        }];
        model.history = Some(vec![
            job_to("sandbox+http://127.0.0.1:8080", 3),
            job_to("sandbox+http://127.0.0.1:1", 2),
            job_to("sandbox+http://127.0.0.1:8080", 1),
        ]);
        assert_eq!(
            target_choices(&model),
            [
                (
                    "sandbox+http://127.0.0.1:1".to_string(),
                    "Local sandbox — test deposits".to_string()
                ),
                (
                    "sandbox+http://127.0.0.1:8080".to_string(),
                    "sandbox+http://127.0.0.1:8080".to_string()
                ),
            ]
        );
    }
}
