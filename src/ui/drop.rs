//! Drag and drop: the overlay while files hover over the window, and handing dropped paths
//! to the service (which tells files from folders and refuses folders added twice).

use egui::{Align2, Color32, FontId, Id, LayerId, Order};

use super::LodgeApp;
use crate::app::Command;

/// Send what was dropped this frame to the service.
pub fn take_dropped(app: &mut LodgeApp, ctx: &egui::Context) {
    let dropped = ctx.input_mut(|i| std::mem::take(&mut i.raw.dropped_files));
    if dropped.is_empty() {
        return;
    }
    let paths: Vec<_> = dropped.iter().map(|f| f.path().to_path_buf()).collect();
    if !paths.is_empty() {
        app.send(Command::AddFolders(paths));
    }
}

/// Dim the window and say what a drop will do, while something hovers over it.
pub fn overlay(ctx: &egui::Context) {
    let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
    if !hovering {
        return;
    }
    let painter = ctx.layer_painter(LayerId::new(Order::Foreground, Id::unique("drop_overlay")));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, Color32::from_black_alpha(170));
    painter.text(
        rect.center(),
        Align2::CENTER_CENTER,
        "Drop folders to add them as datasets",
        FontId::proportional(28.0),
        Color32::WHITE,
    );
}
