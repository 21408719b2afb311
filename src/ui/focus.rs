//! The keyboard's focus kept in place when a button pressed by the keyboard goes. A row's
//! Deposit pressed by Enter gives way to the running deposit's buttons, a creator's ✖ takes
//! its row with it: egui drops the focus then, and the next Tab starts over at the window's
//! top. Here the focus moves to the nearest widget that takes it, where the gone one was.
//! Only a widget pressed a moment before: one that went out of sight otherwise (its row
//! scrolled away as Up and Down move the selection) leaves no focus behind, as before,
//! rather than hand it to whatever row scrolled into its place (where Enter would press
//! another dataset's button).

use egui::{Id, LayerId, Rect};

/// How long after its press a widget's going keeps the focus in its place: the press's
/// command reaches the model and redraws the row within this.
const AFTER_A_PRESS_SECS: f64 = 3.0;

/// Where the focused widget was when last drawn, and when it was last pressed.
#[derive(Clone, Copy, Debug, Default)]
pub struct FocusPlace {
    place: Option<(Id, LayerId, Rect)>,
    pressed_at: Option<f64>,
}

impl FocusPlace {
    /// Called at the end of each frame, once everything is drawn: note where the focused
    /// widget is (and whether it is being pressed), or, when it was pressed a moment ago
    /// and not drawn this frame (gone), give the focus to the nearest widget on the same
    /// layer that takes it. A widget given the focus this frame and not drawn yet is left
    /// to it (its place is not known).
    pub fn keep(&mut self, ctx: &egui::Context) {
        let Some(focused) = ctx.memory(|m| m.focused()) else {
            *self = FocusPlace::default();
            return;
        };
        let now = ctx.input(|i| i.time);
        let pressing = ctx.input(|i| {
            i.key_pressed(egui::Key::Enter)
                || i.key_pressed(egui::Key::Space)
                || i.pointer.any_click()
        });
        let held = self.place.filter(|(id, _, _)| *id == focused);
        let pressed_lately = held.is_some()
            && self
                .pressed_at
                .is_some_and(|at| now - at <= AFTER_A_PRESS_SECS);
        let (here, nearest) = ctx.viewport(|v| {
            let widgets = &v.this_pass.widgets;
            if let Some(w) = widgets.get(focused) {
                return (Some((w.id, w.layer_id, w.interact_rect)), None);
            }
            let Some((_, layer, was)) = held.filter(|_| pressed_lately) else {
                return (None, None);
            };
            let nearest = widgets
                .get_layer(layer)
                .filter(|w| {
                    w.enabled
                        && w.visible
                        && w.sense.is_focusable()
                        && w.interact_rect.is_positive()
                })
                .min_by(|a, b| {
                    distance(was, a.interact_rect).total_cmp(&distance(was, b.interact_rect))
                })
                .map(|w| (w.id, w.layer_id, w.interact_rect));
            (None, nearest)
        });
        match (here, nearest) {
            (Some(place), _) => {
                if held.is_none() {
                    self.pressed_at = None;
                }
                if pressing {
                    self.pressed_at = Some(now);
                }
                self.place = Some(place);
            }
            (None, Some(place)) => {
                ctx.memory_mut(|m| m.request_focus(place.0));
                *self = FocusPlace {
                    place: Some(place),
                    pressed_at: None,
                };
            }
            (None, None) => *self = FocusPlace::default(),
        }
    }
}

/// How far `to` is from `from`, for the focus's new place: a widget on the same line
/// (a row's other buttons) before one straight above or below (the next row's).
fn distance(from: Rect, to: Rect) -> f32 {
    let d = to.center() - from.center();
    d.x.abs() + 4.0 * d.y.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_widget_on_the_same_line_is_nearer_than_one_on_the_next() {
        let gone = Rect::from_min_size(egui::pos2(600.0, 100.0), egui::vec2(60.0, 20.0));
        let same_row = gone.translate(egui::vec2(110.0, 0.0));
        let next_row = gone.translate(egui::vec2(0.0, 29.0));
        assert!(distance(gone, same_row) < distance(gone, next_row));
    }
}
