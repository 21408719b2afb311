//! Brief, non-blocking messages at the bottom right of the table's side, just above the log
//! and beside the details panel ("not a folder", "exported to"), so they cover neither the
//! log's newest lines nor its filters, nor the details' buttons (Verify, Copy link). While
//! Settings is open they sit beside it, or, where the window leaves no room beside it and
//! the details, in it at its foot: no notice covers a field of Settings or its Save, nor of
//! the details. A notice said again shows once.
//! An info notice stays a few seconds; a warning or an error stays until closed, since it
//! says what a person must know (another window holds the sandbox's port) and may take
//! longer than that to read. All can be closed and all are also in the log. A target's
//! pause is said until the pause ends, not after. While notices show, the datasets list and
//! the history scroll on past their last row by as much as the notices cover of them
//! ([`Notices::drawn`]), so they hide no row's buttons for good.

use egui::{Align2, Color32, RichText};

use super::Clock;
use crate::app::{Model, Notice, NoticeLevel};

/// The room the window leaves the notices.
pub struct Room {
    /// Points between their foot and the window's bottom edge (the log's height).
    pub above: f32,
    /// Points between their right edge and the window's (the details panel's width, when
    /// it is open).
    pub beside: f32,
    /// Where a floating window the notices keep clear of is (Settings, while open).
    pub clear_of: Option<egui::Rect>,
}

/// What a notice's frame and ✖ add to its text's width.
const FRAMING: f32 = 48.0;
/// The least width of a notice's text.
const LEAST_WIDTH: f32 = 200.0;
/// How long an info notice stays.
const SHOWN_FOR_SECS: f64 = 8.0;
/// How many notices are shown before the oldest info notice makes room for a new one.
const MAX_SHOWN: usize = 4;
/// How many warnings and errors are kept, at most, until closed: past that the oldest goes
/// (each is in the log too).
const MAX_KEPT: usize = 12;

#[derive(Default)]
pub struct Notices {
    /// Each notice with the input time when it disappears (`None`: when closed).
    shown: Vec<(Notice, Option<f64>)>,
    /// Where the notices were drawn last frame, while any is shown.
    drawn: Option<egui::Rect>,
    /// How many error notices came since the window opened: what waits on commands it sent
    /// (the close dialog's Save and close) tells from it that one of them failed.
    errors: u64,
    /// Settings is open with no room beside it: the notices are drawn at its foot, in it
    /// ([`Notices::show_inside`]), as decided in the last frame.
    inside: bool,
}

impl Notices {
    /// Take the model's new notices, and take down those about a pause that has ended (a
    /// target's, or the window's own) or about gone folders none of which is still listed
    /// as gone.
    pub fn take_from(&mut self, model: &mut Model, ctx: &egui::Context) {
        for n in std::mem::take(&mut model.notices) {
            self.push(n, ctx);
        }
        self.shown.retain(|(n, _)| {
            let pause_stands = (n.while_paused.as_deref())
                .is_none_or(|scope| model.paused_reason(scope).is_some());
            let a_folder_still_gone = n.while_gone.is_empty()
                || (n.while_gone.iter())
                    .any(|id| model.row(*id).is_some() && model.folder_gone(*id));
            let deposits_still_paused = !n.while_deposits_paused || !model.engine_running;
            let still_damaged = (n.while_damaged.as_ref())
                .is_none_or(|(key, target)| model.damage(key, target).is_some());
            pause_stands && a_folder_still_gone && deposits_still_paused && still_damaged
        });
    }

    pub fn push(&mut self, notice: Notice, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        if notice.level == NoticeLevel::Error {
            self.errors += 1;
        }
        // Said again (the same folder dropped twice, say): shown once, as the newest, its
        // time starting over, rather than piling up copies that push the others out. News
        // of the same topic overtakes the earlier notice (a target lost, then back).
        self.shown.retain(|(n, _)| {
            (n.level, &n.text) != (notice.level, &notice.text)
                && (n.topic.is_none() || n.topic != notice.topic)
        });
        let until = match notice.level {
            NoticeLevel::Info => Some(now + SHOWN_FOR_SECS),
            NoticeLevel::Warning | NoticeLevel::Error => None,
        };
        self.shown.push((notice, until));
        if self.shown.len() > MAX_SHOWN {
            // Room is made by the oldest info notice: a warning or an error goes when closed
            // (past the stack's height they scroll), unless a great many pile up.
            // Not the one just said: it is news.
            let earlier = &self.shown[..self.shown.len() - 1];
            let oldest = (earlier.iter()).position(|(n, _)| n.level == NoticeLevel::Info);
            match oldest {
                Some(oldest) => drop(self.shown.remove(oldest)),
                None if self.shown.len() > MAX_KEPT => drop(self.shown.remove(0)),
                None => {}
            }
        }
    }

    /// How many error notices came since the window opened.
    pub fn errors_so_far(&self) -> u64 {
        self.errors
    }

    /// The notices on screen now.
    pub fn current(&self) -> impl Iterator<Item = &Notice> {
        self.shown.iter().map(|(n, _)| n)
    }

    /// Where the notices were drawn in the last frame (they are drawn after the panels they
    /// float over), `None` while none is shown: the table leaves room for them below its
    /// last row.
    pub fn drawn(&self) -> Option<egui::Rect> {
        self.drawn
    }

    /// Draw the notices in the `room` the window leaves them.
    pub fn show(&mut self, ctx: &egui::Context, clock: Clock, room: Room) {
        let Room {
            above,
            beside,
            clear_of,
        } = room;
        let now = ctx.input(|i| i.time);
        // A fixed clock (snapshots) keeps notices until closed.
        if clock == Clock::System {
            self.shown
                .retain(|(_, until)| until.is_none_or(|t| t > now));
        }
        if self.shown.is_empty() {
            self.drawn = None;
            return;
        }
        if let Some(next) = self.shown.iter().filter_map(|(_, t)| *t).reduce(f64::min) {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64((next - now).max(0.05)));
        }
        // Beside a floating window (Settings), whose fields and buttons they must not
        // cover, where the screen leaves room beside it and the details panel; else in it,
        // at its foot (drawn there from the next frame).
        let mut text_room = f32::INFINITY;
        let was_inside = std::mem::take(&mut self.inside);
        if let Some(window) = clear_of {
            // The text's room between the window's right edge and the notices' own.
            text_room =
                ctx.content_rect().right() - 12.0 - beside - window.right() - 12.0 - FRAMING;
            if text_room < LEAST_WIDTH {
                self.inside = true;
                self.drawn = None;
                if !was_inside {
                    ctx.request_repaint();
                }
                return;
            }
        }
        // As wide as a notice reads well, and no wider than the table's side (or the room
        // beside the floating window) leaves it.
        let width = (ctx.content_rect().width() - beside - 48.0)
            .min(text_room)
            .clamp(LEAST_WIDTH, 420.0);
        // No higher than half the room above the log: several long warnings in a small
        // window would otherwise cover the whole list and the top bar's buttons. Past that
        // they scroll, the newest (at the foot) in view.
        let tallest = ((ctx.content_rect().height() - above) / 2.0).max(80.0);
        let mut close = None;
        let area = egui::Area::new(egui::Id::unique("notices"))
            .anchor(Align2::RIGHT_BOTTOM, [-12.0 - beside, -12.0 - above])
            .order(egui::Order::Foreground)
            .show(ctx, |ui| {
                // An area lays out its content in the size it measured last frame: without
                // this, the scroll below kept the height of the first notice shown, and a
                // second one above it was cut to that height, the older one's text and ✖
                // out of sight.
                ui.set_max_height(tallest);
                egui::ScrollArea::vertical()
                    .id_salt("notices")
                    .max_height(tallest)
                    .stick_to_bottom(true)
                    .show(ui, |ui| close = draw_stack(ui, &self.shown, width));
            });
        // Grown or shrunk, the area is placed by its new size in the next frame.
        if self.drawn != Some(area.response.rect) {
            ctx.request_repaint();
        }
        self.drawn = Some(area.response.rect);
        if let Some(i) = close {
            self.shown.remove(i);
        }
    }
}

impl Notices {
    /// Whether the notices go in Settings, at its foot ([`Notices::show_inside`]), this
    /// frame.
    pub fn inside(&self) -> bool {
        self.inside && !self.shown.is_empty()
    }

    /// The height Settings leaves its foot for the notices: as much as they may take there
    /// (a quarter of the window; past that they scroll), so they are whole at once.
    pub fn inside_height(&self, ctx: &egui::Context) -> f32 {
        match self.inside() {
            true => inside_room(ctx) + INSIDE_FRAMING,
            false => 0.0,
        }
    }

    /// Draw the notices in `ui` (Settings' foot): the newest at the bottom, scrolling past a
    /// few lines, so Settings keeps most of the screen.
    pub fn show_inside(&mut self, ui: &mut egui::Ui) {
        if !self.inside() {
            return;
        }
        let width = (ui.available_width() - FRAMING).max(LEAST_WIDTH);
        let tallest = inside_room(ui.ctx());
        let mut close = None;
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt("notices_inside")
            .max_height(tallest)
            // Settings sizes itself by what it held last frame: without this, the notices
            // kept the height the first frame left them, cut short.
            .min_scrolled_height(tallest)
            .stick_to_bottom(true)
            .show(ui, |ui| close = draw_stack(ui, &self.shown, width));
        if let Some(i) = close {
            self.shown.remove(i);
        }
    }
}

/// How tall the notices may be at Settings' foot: a quarter of the window.
fn inside_room(ctx: &egui::Context) -> f32 {
    (ctx.content_rect().height() * 0.25).max(80.0)
}

/// What the separator above the notices at Settings' foot takes.
const INSIDE_FRAMING: f32 = 12.0;

/// The notices `shown`, oldest first, each no wider than `width`, wherever they go (over
/// the window, or at Settings' foot): the one whose ✖ was clicked, if any.
fn draw_stack(ui: &mut egui::Ui, shown: &[(Notice, Option<f64>)], width: f32) -> Option<usize> {
    let mut close = None;
    for (i, (notice, _)) in shown.iter().enumerate() {
        if draw_notice(ui, notice, width) {
            close = Some(i);
        }
    }
    close
}

/// One notice in its frame, no wider than `width`; whether its ✖ was clicked.
fn draw_notice(ui: &mut egui::Ui, notice: &Notice, width: f32) -> bool {
    let colour = match notice.level {
        NoticeLevel::Info => ui.visuals().text_color(),
        NoticeLevel::Warning => Color32::from_rgb(0xd0, 0x8a, 0x10),
        NoticeLevel::Error => Color32::from_rgb(0xd6, 0x3c, 0x3c),
    };
    let mut closed = false;
    egui::Frame::popup(ui.style()).show(ui, |ui| {
        ui.set_max_width(width);
        ui.horizontal(|ui| {
            ui.add(egui::Label::new(RichText::new(&notice.text).color(colour)).wrap());
            closed = ui.small_button("✖").on_hover_text("Close").clicked();
        });
    });
    closed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The room of a window with no details panel nor Settings open, the log `above` high.
    fn room(above: f32) -> Room {
        Room {
            above,
            beside: 0.0,
            clear_of: None,
        }
    }

    /// One frame at input time `time`, `new` notices taken in first.
    fn frame(ctx: &egui::Context, notices: &mut Notices, time: f64, new: Vec<Notice>) {
        let input = egui::RawInput {
            time: Some(time),
            ..Default::default()
        };
        let mut new = Some(new);
        let mut output = ctx.run_ui(input, |ui| {
            for n in new.take().unwrap_or_default() {
                notices.push(n, ui.ctx());
            }
            notices.show(ui.ctx(), Clock::System, room(0.0));
        });
        // No renderer takes up the fonts' texture here.
        output.textures_delta.clear();
    }

    /// Several long warnings in the smallest window scroll within half the room above the
    /// log, rather than covering the whole list and the top bar.
    #[test]
    fn a_stack_of_long_warnings_in_a_small_window_takes_at_most_half_its_height() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let long = "A warning long enough to wrap over several lines in a narrow window: the \
                    folder of a dataset is gone, its files cannot be read, and here is what \
                    to do about it, said at length.";
        let (above, height) = (150.0, 600.0);
        for time in [1.0, 2.0, 3.0, 4.0] {
            let input = egui::RawInput {
                time: Some(time),
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(800.0, height),
                )),
                ..Default::default()
            };
            let mut output = ctx.run_ui(input, |ui| {
                if time == 1.0 {
                    for n in 1..=4 {
                        notices.push(Notice::warning(format!("{n}. {long} {long}")), ui.ctx());
                    }
                }
                notices.show(ui.ctx(), Clock::Fixed(0), room(above));
            });
            output.textures_delta.clear();
        }
        let drawn = notices.drawn().expect("shown");
        assert!(
            drawn.height() <= (height - above) / 2.0 + 8.0,
            "{drawn:?} covers more than half the room above the log"
        );
        assert_eq!(texts(&notices).len(), 4, "none dropped: they scroll");
    }

    fn texts(notices: &Notices) -> Vec<&str> {
        notices.current().map(|n| n.text.as_str()).collect()
    }

    #[test]
    fn a_warning_stays_until_closed_where_an_info_notice_fades() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let warning = "Another Lodge window is open, with the local sandbox on its usual port \
                       8080. This window's local sandbox is on port 32839 until it closes.";
        frame(
            &ctx,
            &mut notices,
            1.0,
            vec![
                Notice::info("Exported 3 jobs"),
                Notice::warning(warning),
                Notice::error("The database stopped answering"),
            ],
        );
        frame(&ctx, &mut notices, 5.0, vec![]);
        assert_eq!(texts(&notices).len(), 3, "all shown a moment later");
        frame(&ctx, &mut notices, 600.0, vec![]);
        assert_eq!(
            texts(&notices),
            [warning, "The database stopped answering"],
            "the info notice faded, the others stay"
        );
    }

    /// The same notice said again (a folder dropped twice) shows once, as the newest, its
    /// time starting over; it does not push the others out.
    #[test]
    fn a_notice_said_again_shows_once_as_the_newest() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let gone = Notice::error("The folder /lab/soil-cores is gone");
        let drop = Notice::info("Not a folder: notes.txt. Drop folders, not files.");
        frame(
            &ctx,
            &mut notices,
            1.0,
            vec![drop.clone(), gone.clone(), Notice::info("Exported 3 jobs")],
        );
        frame(&ctx, &mut notices, 7.0, vec![drop.clone(), gone.clone()]);
        assert_eq!(
            texts(&notices),
            ["Exported 3 jobs", drop.text.as_str(), gone.text.as_str()]
        );
        assert_eq!(notices.errors_so_far(), 2, "each error counts");
        frame(&ctx, &mut notices, 12.0, vec![]);
        assert_eq!(
            texts(&notices),
            [drop.text.as_str(), gone.text.as_str()],
            "the first info notice faded; the one said again at 7 s stays its full time"
        );
    }

    #[test]
    fn a_full_stack_makes_room_by_its_oldest_info_notice_not_a_warning() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let mut new = vec![Notice::warning("Careful: this computer's clock is off")];
        new.extend((1..=4).map(|n| Notice::info(format!("info {n}"))));
        frame(&ctx, &mut notices, 1.0, new);
        assert_eq!(
            texts(&notices),
            [
                "Careful: this computer's clock is off",
                "info 2",
                "info 3",
                "info 4"
            ]
        );
    }

    /// Warnings and errors are not dropped to make room: they stay until closed (the
    /// stack scrolls), a great many aside.
    #[test]
    fn warnings_and_errors_stay_until_closed_however_many() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let new: Vec<Notice> = (1..=6)
            .map(|n| Notice::error(format!("Cannot open record {n} in a web browser")))
            .chain([Notice::info("Exported 3 jobs")])
            .collect();
        frame(&ctx, &mut notices, 1.0, new);
        assert_eq!(texts(&notices).len(), 7, "{:?}", texts(&notices));
        assert!(texts(&notices)[0].contains("record 1"));
        assert_eq!(texts(&notices)[6], "Exported 3 jobs", "news is shown");
        let many = (1..=20)
            .map(|n| Notice::warning(format!("warning {n}")))
            .collect();
        frame(&ctx, &mut notices, 2.0, many);
        assert_eq!(
            texts(&notices).len(),
            MAX_KEPT,
            "the oldest go past {MAX_KEPT}"
        );
        assert_eq!(texts(&notices).last(), Some(&"warning 20"));
    }

    /// Notices given to the model, taken in one frame at `time`.
    fn taken(ctx: &egui::Context, notices: &mut Notices, model: &mut Model, time: f64) {
        let input = egui::RawInput {
            time: Some(time),
            ..Default::default()
        };
        let mut output = ctx.run_ui(input, |ui| notices.take_from(model, ui.ctx()));
        output.textures_delta.clear();
    }

    /// "Queued; deposits are paused: press Resume" goes once they are resumed: it must not
    /// say "paused" beside rows being sent. Another notice stays its time.
    #[test]
    fn a_notice_that_deposits_are_paused_goes_once_they_are_resumed() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let mut model = Model::default();
        model.engine_running = false;
        let paused = "1 deposit queued; deposits are paused: press Resume to send them.";
        model.notices = vec![
            Notice::info(paused).while_deposits_paused(),
            Notice::info("Exported 3 jobs"),
        ];
        taken(&ctx, &mut notices, &mut model, 1.0);
        assert_eq!(texts(&notices), [paused, "Exported 3 jobs"]);
        model.engine_running = true;
        taken(&ctx, &mut notices, &mut model, 1.5);
        assert_eq!(texts(&notices), ["Exported 3 jobs"]);
    }

    /// A check's findings take the place of the notice that it started, on its target
    /// only.
    #[test]
    fn the_findings_of_a_check_take_the_place_of_its_start() {
        let ctx = egui::Context::default();
        let mut notices = Notices::default();
        let started = |on: &str| {
            Notice::info(format!("Verifying 26 deposits on {on}; a notice follows")).about(on)
        };
        frame(
            &ctx,
            &mut notices,
            1.0,
            vec![started("lab"), started("dav")],
        );
        let found = Notice::info("All 26 deposits on lab are intact").about("lab");
        frame(&ctx, &mut notices, 2.0, vec![found]);
        assert_eq!(
            texts(&notices),
            [
                "Verifying 26 deposits on dav; a notice follows",
                "All 26 deposits on lab are intact"
            ]
        );
    }
}
