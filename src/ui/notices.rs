//! Brief, non-blocking messages at the bottom right of the table's side, just above the log
//! and beside the details panel ("not a folder", "exported to"), so they cover neither the
//! log's newest lines nor its filters, nor the details' buttons (Verify, Copy link), nor
//! Settings, which opens at the left.
//! An info notice stays a few seconds; a warning or an error stays until closed, since it
//! says what a person must know (another window holds the sandbox's port) and may take
//! longer than that to read. All can be closed and all are also in the log. A target's
//! pause is said until the pause ends, not after. While notices show, the datasets list and
//! the history scroll on past their last row by as much as the notices cover of them
//! ([`Notices::drawn`]), so they hide no row's buttons for good.

use egui::{Align2, Color32, RichText};

use super::Clock;
use crate::app::{Model, Notice, NoticeLevel};

/// How long an info notice stays.
const SHOWN_FOR_SECS: f64 = 8.0;
const MAX_SHOWN: usize = 4;

#[derive(Default)]
pub struct Notices {
    /// Each notice with the input time when it disappears (`None`: when closed).
    shown: Vec<(Notice, Option<f64>)>,
    /// Where the notices were drawn last frame, while any is shown.
    drawn: Option<egui::Rect>,
}

impl Notices {
    /// Take the model's new notices, and take down those about a pause that has ended or
    /// about gone folders none of which is still listed as gone.
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
            pause_stands && a_folder_still_gone
        });
    }

    pub fn push(&mut self, notice: Notice, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let until = match notice.level {
            NoticeLevel::Info => Some(now + SHOWN_FOR_SECS),
            NoticeLevel::Warning | NoticeLevel::Error => None,
        };
        self.shown.push((notice, until));
        if self.shown.len() > MAX_SHOWN {
            // Room is made by the oldest info notice first: a warning goes when closed.
            let oldest = (self.shown.iter())
                .position(|(n, _)| n.level == NoticeLevel::Info)
                .unwrap_or(0);
            self.shown.remove(oldest);
        }
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

    /// Draw the notices, their foot `above` points over the window's bottom edge (the log's
    /// height), their right edge `beside` points left of the window's (the details panel's
    /// width, when it is open).
    pub fn show(&mut self, ctx: &egui::Context, clock: Clock, above: f32, beside: f32) {
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
        // As wide as a notice reads well, and no wider than the table's side leaves it.
        let width = (ctx.content_rect().width() - beside - 48.0).clamp(200.0, 420.0);
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
                    .show(ui, |ui| {
                        for (i, (notice, _)) in self.shown.iter().enumerate() {
                            if draw_notice(ui, notice, width) {
                                close = Some(i);
                            }
                        }
                    });
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
            notices.show(ui.ctx(), Clock::System, 0.0, 0.0);
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
                notices.show(ui.ctx(), Clock::Fixed(0), above, 0.0);
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
}
