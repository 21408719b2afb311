//! How numbers, sizes and times read in the window.

pub use crate::wording::human_bytes as bytes;

/// A content key as the window shows it: its short form (the whole on hover) and a button
/// that copies the whole key.
pub fn content_key(ui: &mut egui::Ui, key: &crate::content::ContentKey) {
    ui.monospace(key.short()).on_hover_text(key.to_hex());
    if ui
        .small_button("📋")
        .on_hover_text("Copy the full key")
        .clicked()
    {
        ui.ctx().copy_text(key.to_hex());
    }
}

/// Seconds left until `at_ms`, as "12 s" or "3 min 5 s".
pub fn countdown(at_ms: i64, now_ms: i64) -> String {
    let secs = ((at_ms - now_ms).max(0) + 999) / 1000;
    if secs >= 60 {
        format!("{} min {} s", secs / 60, secs % 60)
    } else {
        format!("{secs} s")
    }
}

/// How times are shown: real, or masked (for reproducible snapshots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    #[default]
    System,
    /// A fixed "now" and every timestamp shown as `--:--:--`.
    Fixed(i64),
}

impl Clock {
    pub fn now_ms(self) -> i64 {
        match self {
            Clock::System => crate::store::now_ms(),
            Clock::Fixed(ms) => ms,
        }
    }

    /// A timestamp as local-independent UTC `HH:MM:SS`.
    pub fn time(self, at_ms: i64) -> String {
        match self {
            Clock::Fixed(_) => "--:--:--".into(),
            Clock::System => {
                let s = self.stamp(at_ms);
                s.get(11..19).unwrap_or(&s).to_string()
            }
        }
    }

    /// A timestamp in full, as RFC 3339 UTC (`2026-12-08T00:04:30Z`, as the history's files
    /// write times): what a line copied out of the window carries, read later on another
    /// day.
    pub fn stamp(self, at_ms: i64) -> String {
        match self {
            Clock::Fixed(_) => "----------T--:--:--Z".into(),
            Clock::System => crate::history_file::time_text(at_ms),
        }
    }

    /// A timestamp as `YYYY-MM-DD HH:MM` UTC.
    pub fn date_time(self, at_ms: i64) -> String {
        match self {
            Clock::Fixed(_) => "----------- --:--".into(),
            Clock::System => {
                let s = self.stamp(at_ms);
                format!(
                    "{} {}",
                    s.get(..10).unwrap_or(&s),
                    s.get(11..16).unwrap_or("")
                )
            }
        }
    }
}
