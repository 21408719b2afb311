//! Brief, non-blocking messages at the right, just above the log ("not a folder", "exported
//! to"), so they cover neither the log's newest lines nor its filters.
//! Each stays a few seconds (errors longer) and can be closed; all are also in the log. A
//! target's pause is said until the pause ends, not after.

use egui::{Align2, Color32, RichText};

use super::Clock;
use crate::app::{Model, Notice, NoticeLevel};

const SHOWN_FOR_SECS: f64 = 8.0;
const ERROR_SHOWN_FOR_SECS: f64 = 20.0;
const MAX_SHOWN: usize = 4;

#[derive(Default)]
pub struct Notices {
    /// Each notice with the input time when it disappears.
    shown: Vec<(Notice, f64)>,
}

impl Notices {
    /// Take the model's new notices, and take down those about a pause that has ended.
    pub fn take_from(&mut self, model: &mut Model, ctx: &egui::Context) {
        for n in std::mem::take(&mut model.notices) {
            self.push(n, ctx);
        }
        self.shown.retain(|(n, _)| {
            n.while_paused
                .as_deref()
                .is_none_or(|scope| model.paused_reason(scope).is_some())
        });
    }

    pub fn push(&mut self, notice: Notice, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let secs = match notice.level {
            NoticeLevel::Error => ERROR_SHOWN_FOR_SECS,
            _ => SHOWN_FOR_SECS,
        };
        self.shown.push((notice, now + secs));
        if self.shown.len() > MAX_SHOWN {
            self.shown.remove(0);
        }
    }

    /// The notices on screen now.
    pub fn current(&self) -> impl Iterator<Item = &Notice> {
        self.shown.iter().map(|(n, _)| n)
    }

    /// Draw the notices, their foot `above` points over the window's bottom edge (the log's
    /// height).
    pub fn show(&mut self, ctx: &egui::Context, clock: Clock, above: f32) {
        let now = ctx.input(|i| i.time);
        // A fixed clock (snapshots) keeps notices until closed.
        if clock == Clock::System {
            self.shown.retain(|(_, until)| *until > now);
        }
        if self.shown.is_empty() {
            return;
        }
        if let Some(next) = self.shown.iter().map(|(_, t)| *t).reduce(f64::min) {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64((next - now).max(0.05)));
        }
        let mut close = None;
        egui::Area::new(egui::Id::unique("notices"))
            .anchor(Align2::RIGHT_BOTTOM, [-12.0, -12.0 - above])
            .order(egui::Order::Foreground)
            .show(ctx, |ui| {
                for (i, (notice, _)) in self.shown.iter().enumerate() {
                    let colour = match notice.level {
                        NoticeLevel::Info => ui.visuals().text_color(),
                        NoticeLevel::Warning => Color32::from_rgb(0xd0, 0x8a, 0x10),
                        NoticeLevel::Error => Color32::from_rgb(0xd6, 0x3c, 0x3c),
                    };
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.set_max_width(420.0);
                        ui.horizontal(|ui| {
                            ui.add(
                                egui::Label::new(RichText::new(&notice.text).color(colour)).wrap(),
                            );
                            if ui.small_button("✖").on_hover_text("Close").clicked() {
                                close = Some(i);
                            }
                        });
                    });
                }
            });
        if let Some(i) = close {
            self.shown.remove(i);
        }
    }
}
