//! The desktop window (egui): panels that draw the [`Model`] and send [`Command`]s to the
//! [`AppService`]. No business logic lives here; every decision is the core's or `app`'s.
//!
//! One file per panel: [`top_bar`], [`table`] (datasets), [`details`] (with
//! [`metadata_form`]), [`log_panel`], [`history`], [`settings_window`], [`drop`] (the drop
//! overlay, dropped and pasted paths), [`dialogs`], [`notices`] and [`shortcuts`];
//! [`fonts`] adds the system's fonts for the scripts the built-in ones lack.

pub mod badge;
pub mod details;
pub mod dialogs;
pub mod drop;
pub mod focus;
pub mod fonts;
pub mod format;
pub mod history;
pub mod log_panel;
pub mod metadata_form;
pub mod notices;
pub mod settings_window;
pub mod shortcuts;
pub mod table;
pub mod targets_section;
pub mod top_bar;

use crate::app::{AppService, CheckOf, Command, DedupStatus, Model};
use crate::wording::count_of;
pub use format::Clock;

/// Which view fills the middle of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum View {
    Datasets,
    History,
}

/// What the window remembers from one run to the next (in Lodge's own file, written as soon
/// as it changes; eframe's storage too): how the list is sorted and which target is picked. Not the search or the status filter: a list that
/// opened filtered would hide datasets from whoever forgot the filter.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ViewMemory {
    pub sort: table::SortBy,
    pub descending: bool,
    /// The picked target's scope id, and its name in the config if it has one (a target
    /// edited since to another URL is found by its name).
    pub target_scope: String,
    pub target_name: Option<String>,
    /// The zoom (Ctrl+plus, Ctrl+minus), in percent: a person who needs larger text is not
    /// to zoom again at each start. Absent: 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoom_percent: Option<u16>,
}

/// The window's zoom as it is remembered: one recalled from the last run, set on the first
/// frame (the context is not there before), then the zoom as the person leaves it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Zoom {
    Recalled(Option<u16>),
    Now(f32),
}

impl Default for Zoom {
    fn default() -> Zoom {
        Zoom::Now(1.0)
    }
}

impl Zoom {
    /// Set a recalled zoom on `ctx`, else take up the zoom `ctx` has now.
    fn follow(&mut self, ctx: &egui::Context) {
        if let Zoom::Recalled(percent) = *self {
            // Within egui's own bounds of Ctrl+plus and Ctrl+minus.
            let factor = f32::from(percent.unwrap_or(100)) / 100.0;
            ctx.set_zoom_factor(factor.clamp(0.2, 5.0));
        }
        *self = Zoom::Now(ctx.zoom_factor());
    }

    /// The zoom to remember: `None` at 100 % (nothing to keep).
    fn percent_to_keep(self) -> Option<u16> {
        let percent = match self {
            Zoom::Recalled(percent) => return percent,
            Zoom::Now(factor) => (factor * 100.0).round() as u16,
        };
        (percent != 100).then_some(percent)
    }
}

/// A picked target that stopped being configured, and what the picker shows instead.
struct LostPick {
    scope: String,
    name: Option<String>,
    shown_instead: String,
}

/// The key of [`ViewMemory`] in eframe's storage.
const VIEW_MEMORY_KEY: &str = "lodge-view";

/// The topic of the notices saying what the picker shows once its target went or came back:
/// the later takes the earlier's place.
const PICKED_TARGET: &str = "picked target";

/// The window: the service, the model it keeps current, and what each panel remembers.
pub struct LodgeApp {
    pub service: AppService,
    pub model: Model,
    pub view: View,
    /// Index into `model.targets`.
    pub target: usize,
    /// The picked target's scope id, its name in the config (if it has one) and the
    /// targets' version it was picked in, so the pick survives targets being added, edited
    /// or removed in Settings.
    picked: (String, Option<String>, u64),
    /// The picked target lost when it stopped being configured, and the one the picker
    /// showed in its place: if the lost one comes back (removed and saved again from a
    /// terminal, a config file rewritten) while the picker still shows the other, it is
    /// picked again.
    lost_pick: Option<LostPick>,
    pub selected: Option<i64>,
    pub clock: Clock,
    pub table: table::TableState,
    pub details: details::DetailsState,
    pub log: log_panel::LogState,
    pub history: history::HistoryState,
    pub settings: settings_window::SettingsWindow,
    pub dialogs: dialogs::Dialogs,
    pub notices: notices::Notices,
    /// When the folders were last looked at for changes since their scans (unix ms).
    folders_checked_ms: Option<i64>,
    /// When the folders said to be gone were last looked at again.
    gone_checked_ms: Option<i64>,
    /// What was last written of [`LodgeApp::remember`] (or read at start), so it is written
    /// again only when it changes.
    remembered: Option<ViewMemory>,
    /// The zoom, to remember it ([`ViewMemory::zoom_percent`]).
    zoom: Zoom,
    /// The last write of what the window remembers failed, and a warning said so.
    view_not_written: bool,
    /// Whether a text field had the keyboard at the end of the last frame: egui lets go of
    /// a field's focus on Escape before this frame's shortcuts see the key, and that Escape
    /// was the field's, not the window's.
    typing: bool,
    /// The widget that had the keyboard's focus at the last frame's start, and the one
    /// that took it this frame, if one did ([`follow_focus`]).
    last_focus: Option<egui::Id>,
    focus_moved: Option<egui::Id>,
    /// Where the focused widget was drawn, to keep the focus there when it goes.
    focus_place: focus::FocusPlace,
}

impl LodgeApp {
    pub fn new(service: AppService) -> LodgeApp {
        let remembered: Option<ViewMemory> = service.remembered_view();
        let mut app = LodgeApp {
            service,
            model: Model::default(),
            view: View::Datasets,
            target: 0,
            picked: (String::new(), None, 0),
            lost_pick: None,
            selected: None,
            clock: Clock::System,
            table: table::TableState::default(),
            details: details::DetailsState::default(),
            log: log_panel::LogState::default(),
            history: history::HistoryState::default(),
            settings: settings_window::SettingsWindow::default(),
            dialogs: dialogs::Dialogs::default(),
            notices: notices::Notices::default(),
            folders_checked_ms: None,
            gone_checked_ms: None,
            remembered: None,
            zoom: Zoom::default(),
            view_not_written: false,
            typing: false,
            last_focus: None,
            focus_moved: None,
            focus_place: focus::FocusPlace::default(),
        };
        if let Some(memory) = remembered {
            app.recall(memory.clone());
            app.remembered = Some(memory);
        }
        app
    }

    /// What depositing dataset `id` on `target` sends, given the edits not saved in its
    /// details form (`edits`, from [`details::DetailsState::unsaved_edits`]): with edits
    /// that differ from what is stored, save them first and deposit then, as the details'
    /// own Deposit does (a record is made once: it must carry what the person sees);
    /// `Err` with why not, when those edits are not valid yet.
    pub fn deposit_command(
        entry: &crate::app::DatasetEntry,
        edits: Option<&(crate::content::Metadata, Vec<crate::content::FieldProblem>)>,
        target: &str,
    ) -> Result<Command, String> {
        match edits {
            Some((metadata, problems)) if *metadata != entry.metadata => {
                if !problems.is_empty() {
                    return Err(format!(
                        "{}'s details hold edits not saved that are not valid yet ({}): fix \
                         them, or Undo edits, first",
                        entry.name,
                        count_of(problems.len() as u64, "problem", "problems")
                    ));
                }
                Ok(Command::SetMetadata {
                    id: entry.id,
                    metadata: Box::new(metadata.clone()),
                    then_deposit: Some(target.to_string()),
                })
            }
            _ => Ok(Command::Deposit {
                ids: vec![entry.id],
                target: target.to_string(),
            }),
        }
    }

    /// What to remember of this window for the next run.
    pub fn remember(&self) -> ViewMemory {
        ViewMemory {
            sort: self.table.sort,
            descending: self.table.descending,
            target_scope: self.picked.0.clone(),
            target_name: self.picked.1.clone(),
            zoom_percent: self.zoom.percent_to_keep(),
        }
    }

    /// Take up what an earlier run remembered. The target is picked once the targets are
    /// known; one that is gone leaves the sandbox picked.
    pub fn recall(&mut self, memory: ViewMemory) {
        self.table.sort = memory.sort;
        self.table.descending = memory.descending;
        // A version no list of targets has: the next frame with targets picks this one.
        self.picked = (memory.target_scope, memory.target_name, u64::MAX);
        self.zoom = Zoom::Recalled(memory.zoom_percent);
    }

    /// [`LodgeApp::recall`] what eframe's `storage` holds, if it holds anything and Lodge's
    /// own file ([`crate::app::AppPaths::view_file`], written at each change) held nothing:
    /// eframe saves only at exit and every half minute, so its copy may be older.
    pub fn recall_from(&mut self, storage: &dyn eframe::Storage) {
        if self.remembered.is_some() {
            return;
        }
        if let Some(memory) = eframe::get_value(storage, VIEW_MEMORY_KEY) {
            self.recall(memory);
        }
    }

    /// Write what the window remembers as soon as it changes (a target picked, the list
    /// sorted), once the targets are known and the pick recalled from the last run has
    /// been taken up.
    fn remember_at_once(&mut self) {
        if self.model.targets.is_empty() {
            return;
        }
        let now = self.remember();
        if self.remembered.as_ref() == Some(&now) {
            return;
        }
        match self.service.remember_view(&now) {
            // Said once, not again at each pick or sort while the cause stands.
            Err(not_written) if !self.view_not_written => {
                self.view_not_written = true;
                self.model
                    .apply(crate::app::Update::Notice(crate::app::Notice::warning(
                        not_written.to_string(),
                    )));
            }
            Err(_) => {}
            Ok(()) => self.view_not_written = false,
        }
        self.remembered = Some(now);
    }

    /// When the window comes back into focus, a person may have been editing files
    /// elsewhere: look again for folders changed since their scan (the service walks them
    /// off this thread), at most once every half minute.
    fn check_folders_on_focus(&mut self, ctx: &egui::Context) {
        const AT_MOST_EVERY_MS: i64 = 30_000;
        let focused = ctx.input(|i| {
            i.events
                .iter()
                .any(|e| matches!(e, egui::Event::WindowFocused(true)))
        });
        let now = self.clock.now_ms();
        if focused
            && self.model.ready
            && self
                .folders_checked_ms
                .is_none_or(|then| now - then >= AT_MOST_EVERY_MS)
        {
            self.folders_checked_ms = Some(now);
            self.send(Command::CheckFolders);
        }
    }

    /// While a row says its folder is gone, look again every few seconds (a `stat` each):
    /// a folder put back (or a terminal's `lodge scan` of it) then shows as it is, without
    /// waiting for the window to lose and regain focus.
    fn check_gone_folders_now_and_then(&mut self, ctx: &egui::Context) {
        const EVERY_MS: i64 = 5_000;
        if !self.model.ready || !self.model.any_folder_gone() {
            return;
        }
        let now = self.clock.now_ms();
        if self
            .gone_checked_ms
            .is_none_or(|then| now - then >= EVERY_MS)
        {
            self.gone_checked_ms = Some(now);
            self.send(Command::CheckGoneFolders);
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(EVERY_MS as u64));
    }

    /// The selected target's scope id (empty before the store is open).
    pub fn target_id(&self) -> &str {
        self.model
            .targets
            .get(self.target)
            .map(|t| t.scope_id.as_str())
            .unwrap_or("")
    }

    /// The status of a row for the selected target.
    pub fn status_of(&self, id: i64) -> Option<DedupStatus> {
        let row = self.model.row(id)?;
        Some(self.model.status(row, self.target_id()))
    }

    pub fn send(&self, command: Command) {
        // A check's buttons wait from this frame until it ends (see `Model::check_asked`).
        match &command {
            Command::VerifyDeposit { job, .. } | Command::RepairDeposit { job } => {
                self.model.check_asked(CheckOf::Deposit(*job))
            }
            Command::VerifyDatasets { target, .. } => {
                self.model.check_asked(CheckOf::Target(target.clone()))
            }
            _ => {}
        }
        self.service.send(command);
    }

    /// Select a dataset and fetch its details.
    pub fn select(&mut self, id: Option<i64>) {
        if self.selected != id {
            self.selected = id;
            self.details.reset();
            if let Some(id) = id.filter(|id| *id > 0) {
                self.send(Command::LoadDetails { id });
            }
        }
    }

    /// After the targets changed, point the picker at the same target again: by its scope,
    /// or by its name when an edit changed its scope (a new URL), the sandbox when the
    /// picked one was removed.
    fn keep_picked_target(&mut self) {
        // Before the targets are known there is nothing to pick (and a pick recalled from
        // the last run must wait for them).
        if self.model.targets.is_empty() {
            return;
        }
        if self.picked.2 != self.model.targets_version {
            let (scope, name, _) = &self.picked;
            let position =
                |scope: &String| self.model.targets.iter().position(|t| &t.scope_id == scope);
            let by_name = |name: &Option<String>| {
                let name = name.as_ref()?;
                let t = self
                    .model
                    .configured
                    .iter()
                    .find(|t| &t.summary.name == name)?;
                position(&t.summary.scope_id)
            };
            // By its scope, or by its name when an edit gave it another.
            let mut found = position(scope).or_else(|| by_name(name));
            // The target lost before is back, and the picker still shows what took its
            // place: it is picked again.
            if let Some(lost) = self.lost_pick.take_if(|lost| &lost.shown_instead == scope)
                && let Some(back) = position(&lost.scope).or_else(|| by_name(&lost.name))
            {
                found = Some(back);
                let was = lost.name.unwrap_or(lost.scope);
                let now = (self.model.target_label(&self.model.targets[back].scope_id))
                    .split(" — ")
                    .next()
                    .unwrap_or_default()
                    .to_string();
                // Back under another name (removed, then added again with its address).
                let text = match now == was {
                    true => format!(
                        "The target '{was}' is configured again, so the picker shows it again."
                    ),
                    false => format!(
                        "The target '{now}' has the address of '{was}', removed before, so the \
                         picker shows it now."
                    ),
                };
                self.model.apply(crate::app::Update::Notice(
                    crate::app::Notice::info(text).about(PICKED_TARGET),
                ));
            }
            // Removed while picked (Settings, `lodge target remove`): the sandbox takes its
            // place, and that is said, lest the next Deposit go somewhere unlooked-for.
            if found.is_none() && !scope.is_empty() && self.picked.2 != u64::MAX {
                let gone = name.clone().unwrap_or_else(|| scope.clone());
                self.lost_pick = Some(LostPick {
                    scope: scope.clone(),
                    name: name.clone(),
                    shown_instead: self.model.targets[0].scope_id.clone(),
                });
                self.model.apply(crate::app::Update::Notice(
                    crate::app::Notice::warning(format!(
                        "The target '{gone}' is no longer configured, so the picker shows {} \
                         now: pick another before depositing.",
                        self.model.targets[0]
                            .label
                            .split(" — ")
                            .next()
                            .unwrap_or("the local sandbox")
                    ))
                    .about(PICKED_TARGET),
                ));
            }
            self.target = found.unwrap_or(if scope.is_empty() { self.target } else { 0 });
        }
        if self.picked.0 != self.target_id() || self.picked.2 != self.model.targets_version {
            let scope = self.target_id().to_string();
            // Another target picked since one was lost: that pick stands.
            self.lost_pick.take_if(|lost| lost.shown_instead != scope);
            let name = self
                .model
                .configured
                .iter()
                .find(|t| t.summary.scope_id == scope)
                .map(|t| t.summary.name.clone());
            self.picked = (scope, name, self.model.targets_version);
        }
    }

    /// What runs before each frame and also while the window is hidden (eframe's
    /// `App::logic`), where nothing is drawn: a close request (from the taskbar of a
    /// minimised window too) is held back while work is in hand, and the question waits
    /// for the window to show.
    pub fn before_frame(&mut self, ctx: &egui::Context) {
        dialogs::hold_close_while_working(self, ctx);
    }

    /// A dataset removed elsewhere (a terminal's `lodge remove`, another window) while its
    /// details held edits not saved: the edits went with it, and a warning says so rather
    /// than let them vanish with the row.
    fn say_edits_removed_elsewhere(&mut self) {
        if !self.model.ready {
            return;
        }
        let model = &self.model;
        let lost = self.details.drop_unlisted(|id| model.row(id).is_some());
        for id in lost {
            let name = (self.model.removed_name(id)).unwrap_or_else(|| format!("Dataset {id}"));
            self.model.apply(crate::app::Update::Notice(crate::app::Notice::warning(format!(
                "{name} was removed from the list elsewhere (a terminal's `lodge remove`, or \
                 another window) while its details held edits not saved: they went with it. \
                 Adding its folder again brings back its metadata as last saved."
            ))));
        }
    }

    /// Which widget took the keyboard's focus since the last frame, for [`follow_focus`].
    fn note_focus_moved(&mut self, ctx: &egui::Context) {
        let focused = ctx.memory(|m| m.focused());
        self.focus_moved = focused.filter(|_| focused != self.last_focus);
        self.last_focus = focused;
    }

    /// Draw one frame.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.zoom.follow(ui.ctx());
        self.service.drain(&mut self.model);
        self.keep_picked_target();
        self.remember_at_once();
        self.say_edits_removed_elsewhere();
        if self.selected.is_some_and(|id| self.model.row(id).is_none()) {
            self.select(None);
        }
        self.notices.take_from(&mut self.model, ui.ctx());
        drop::take_dropped(self, ui.ctx());
        drop::take_pasted(self, ui.ctx());
        let target = self.target_id().to_string();
        self.table.refresh(&self.model, &target);
        shortcuts::handle(self, ui.ctx());
        self.note_focus_moved(ui.ctx());
        self.check_folders_on_focus(ui.ctx());
        self.check_gone_folders_now_and_then(ui.ctx());

        top_bar::show(self, ui);
        let log_height = log_panel::show(self, ui);
        let details_width = match self.view == View::Datasets && self.selected.is_some() {
            true => details::show(self, ui),
            false => {
                self.details.not_drawn();
                0.0
            }
        };
        egui::CentralPanel::default().show(ui, |ui| match self.view {
            View::Datasets => table::show(self, ui),
            View::History => history::show(self, ui),
        });

        settings_window::show(self, ui.ctx());
        dialogs::show(self, ui.ctx());
        let settings = settings_window::drawn(self, ui.ctx());
        self.notices.show(
            ui.ctx(),
            self.clock,
            notices::Room {
                above: log_height,
                beside: details_width,
                clear_of: settings,
            },
        );
        drop::overlay(ui.ctx());
        self.focus_place.keep(ui.ctx());
        self.typing = shortcuts::typing_text(ui.ctx());
    }
}

/// A choice of a drop-down list (`ui` its popup's): as `selectable_value`, and the list
/// closes once it is picked, by keyboard too (egui closes it on a pointer's click only,
/// and a keyboard's pick left it open over what is below).
pub(crate) fn pick<V: PartialEq>(
    ui: &mut egui::Ui,
    current: &mut V,
    value: V,
    text: impl Into<egui::WidgetText>,
) -> egui::Response {
    let picked = ui.selectable_value(current, value, text);
    if picked.clicked() {
        ui.close();
    }
    picked
}

/// Bring the widget that has just taken the keyboard's focus (`moved`) into view, when it
/// is in the scroll area whose content `ui` is (called at the content's end): Tab walks
/// past the edge of a scrolled panel (the details' form runs far below the fold, Settings
/// too), and egui leaves it there, out of sight. Its place is the last frame's. One in view
/// stays put.
pub(crate) fn follow_focus(ui: &egui::Ui, moved: Option<egui::Id>) {
    let Some(widget) = moved.and_then(|id| ui.ctx().read_response(id)) else {
        return;
    };
    if widget.layer_id == ui.layer_id() && ui.min_rect().intersects(widget.rect) {
        ui.scroll_to_rect(widget.rect, None);
    }
}

impl eframe::App for LodgeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.before_frame(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, VIEW_MEMORY_KEY, &self.remember());
    }
}
