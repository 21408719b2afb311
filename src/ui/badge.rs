//! The coloured status badge of a dataset row: icon, words, and the detail on hover.

use egui::{Color32, RichText};

use super::format;
use crate::app::{DedupStatus, StatusKind};
use crate::wording::{sentence, short_identifier};

/// Icon and colour per status (readable on light and dark backgrounds).
pub fn style(kind: StatusKind) -> (&'static str, Color32) {
    match kind {
        StatusKind::New => ("✚", Color32::from_rgb(0x6e, 0x7f, 0x96)),
        StatusKind::Hashing => ("⚙", Color32::from_rgb(0x8a, 0x63, 0xd2)),
        StatusKind::Queued => ("⌛", Color32::from_rgb(0x4a, 0x7f, 0xc1)),
        StatusKind::TargetPaused => ("⏸", Color32::from_rgb(0xd6, 0x3c, 0x3c)),
        StatusKind::Uploading => ("⬆", Color32::from_rgb(0x1f, 0x8f, 0xd1)),
        StatusKind::WaitingToRetry => ("⟳", Color32::from_rgb(0xd0, 0x8a, 0x10)),
        StatusKind::Deposited => ("✔", Color32::from_rgb(0x2e, 0x9e, 0x4f)),
        StatusKind::AlreadyDeposited => ("♻", Color32::from_rgb(0x2a, 0x9d, 0x8f)),
        StatusKind::Damaged => ("⚠", Color32::from_rgb(0xd6, 0x3c, 0x3c)),
        StatusKind::NewVersion => ("✚", Color32::from_rgb(0x3d, 0x8f, 0x9e)),
        StatusKind::SameDataAsAnother => ("🔗", Color32::from_rgb(0xb5, 0x6b, 0xb5)),
        StatusKind::ChangedSinceScan => ("✏", Color32::from_rgb(0xc9, 0x6a, 0x1b)),
        StatusKind::FolderMissing => ("❓", Color32::from_rgb(0xc9, 0x6a, 0x1b)),
        StatusKind::Failed => ("✖", Color32::from_rgb(0xd6, 0x3c, 0x3c)),
        StatusKind::Rejected => ("⛔", Color32::from_rgb(0xb0, 0x30, 0x60)),
    }
}

/// The badge text: status words plus the one detail that fits in a cell.
pub fn text(status: &DedupStatus, now_ms: i64) -> String {
    let kind = status.kind();
    let (icon, _) = style(kind);
    let detail = match status {
        DedupStatus::New { ready: false } => Some("metadata incomplete".to_string()),
        DedupStatus::Queued { paused: true } => Some("paused".to_string()),
        DedupStatus::Uploading { sent, total } if *total > 0 => Some(format!(
            "{} of {}",
            format::bytes(*sent),
            format::bytes(*total)
        )),
        // Short, the countdown early: a status cell cut to "Waiting to retry · in 1…" read
        // as a retry in a second when it was in 15.
        // Paused, no countdown: it would reach 0 s and stay there.
        DedupStatus::WaitingToRetry { paused: true, .. } => {
            return format!("{icon} Retry · paused");
        }
        DedupStatus::WaitingToRetry { at_ms, .. } => {
            return format!("{icon} Retry in {}", format::countdown(*at_ms, now_ms));
        }
        DedupStatus::Deposited { identifier, .. }
        | DedupStatus::AlreadyDeposited { identifier, .. }
        | DedupStatus::Damaged { identifier, .. }
        | DedupStatus::SameDataAsAnother { identifier, .. } => {
            Some(short_identifier(identifier).into_owned())
        }
        DedupStatus::NewVersion { identifier, .. } => {
            Some(format!("was {}", short_identifier(identifier)))
        }
        _ => None,
    };
    match detail {
        Some(d) => format!("{icon} {} · {d}", kind.label()),
        None => format!("{icon} {}", kind.label()),
    }
}

/// The full explanation shown on hover.
pub fn hover(status: &DedupStatus) -> String {
    match status {
        DedupStatus::New { ready: true } => {
            "Never deposited to this target under its current key.".into()
        }
        DedupStatus::New { ready: false } => {
            "Never deposited. Its metadata is incomplete: fix it in the details panel.".into()
        }
        DedupStatus::Hashing { done, total } => {
            format!(
                "Hashing: {} of {}",
                format::bytes(*done),
                format::bytes(*total)
            )
        }
        DedupStatus::Queued { paused: false } => "On the queue; a worker will send it soon.".into(),
        DedupStatus::Queued { paused: true } => {
            "On the queue, and sending is paused: press ▶ Resume to send it.".into()
        }
        DedupStatus::TargetPaused { reason, fix } => format!(
            "The target is paused: {} Nothing more is sent there until you act: {fix}.",
            crate::wording::sentence(reason)
        ),
        DedupStatus::Uploading { .. } => "Sending the files and creating the record.".into(),
        DedupStatus::WaitingToRetry {
            cause,
            paused: false,
            ..
        } => format!("Retry scheduled. Cause: {cause}"),
        DedupStatus::WaitingToRetry {
            cause,
            paused: true,
            ..
        } => format!(
            "Retry scheduled, and sending is paused: press ▶ Resume to send it. Cause: {cause}"
        ),
        DedupStatus::Deposited {
            identifier,
            after_lost_answer: false,
            ..
        } => format!("Deposited as {identifier}."),
        DedupStatus::Deposited {
            identifier,
            after_lost_answer: true,
            ..
        } => format!(
            "Deposited as {identifier}. The answer to the attempt that sent it was lost on the way back, and the next try found the record on the server: most likely that attempt made it (else an earlier deposit of the same content did). Nothing was duplicated."
        ),
        DedupStatus::AlreadyDeposited { identifier, .. } => format!(
            "Already deposited as {identifier}: replayed from the store, or the server had the record before this deposit. Nothing was duplicated."
        ),
        DedupStatus::Damaged {
            identifier,
            finding,
            ..
        } => format!(
            "Deposited as {identifier}, but the last check found it damaged on the server: {finding}. Deposit does not send a landed deposit again (it replays it, sending nothing). In the details panel, Repair sends lost files again where the target takes them; else put back what is missing or changed on the server, then press Verify there."
        ),
        DedupStatus::NewVersion { identifier, .. } => format!(
            "Deposited to this target as {identifier} before its files or metadata changed. This version is not deposited here yet: Deposit creates its record, which InvenioRDM and Zenodo keep as the next version of {identifier} (DataCite relates the new DOI to it)."
        ),
        DedupStatus::SameDataAsAnother { identifier, .. } => format!(
            "The same files were deposited with other metadata as {identifier}. Depositing now would create a second record."
        ),
        DedupStatus::ChangedSinceScan { cause } => {
            format!(
                "Files changed after the scan: {} Press Rescan, then deposit again.",
                sentence(cause)
            )
        }
        DedupStatus::FolderMissing { path } => format!(
            "The folder {path} is gone (moved or deleted). Drop it where it is now onto the window to add it there, or remove this row (what it deposited stays)."
        ),
        DedupStatus::Failed { cause } => {
            format!(
                "Failed: {} Retry re-queues it with the same key.",
                sentence(cause)
            )
        }
        DedupStatus::Rejected { cause } => format!("Refused: {cause}"),
    }
}

/// Draw the badge. Cut short in a narrow cell, it shows its hover alone, which says all
/// the badge does and more (a label's own tooltip of its cut text would stack on it). A
/// progress bar fills in the badge's colour, not the selection's: on the selected row it
/// would not show.
pub fn show(ui: &mut egui::Ui, status: &DedupStatus, now_ms: i64) -> egui::Response {
    let (_, colour) = style(status.kind());
    let text = egui::Label::new(RichText::new(text(status, now_ms)).color(colour).strong())
        .show_tooltip_when_elided(false);
    match status {
        DedupStatus::Hashing { done, total } => {
            let fraction = if *total == 0 {
                0.0
            } else {
                *done as f32 / *total as f32
            };
            ui.horizontal(|ui| {
                ui.add(text);
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(70.0)
                        .fill(colour)
                        .show_percentage(),
                );
            })
            .response
            .on_hover_text(hover(status))
        }
        DedupStatus::Uploading { sent, total } if *total > 0 => ui
            .horizontal(|ui| {
                ui.add(
                    egui::ProgressBar::new(*sent as f32 / *total as f32)
                        .desired_width(50.0)
                        .fill(colour),
                );
                ui.add(text);
            })
            .response
            .on_hover_text(hover(status)),
        _ => ui.add(text).on_hover_text(hover(status)),
    }
}

/// Beside a landed deposit's badge, when its folder (`path`) is gone from this machine: the
/// deposit stands, but nothing more can be sent, rescanned or repaired from here.
pub fn folder_missing_note(ui: &mut egui::Ui, path: &str) -> egui::Response {
    let (_, colour) = style(StatusKind::FolderMissing);
    ui.label(RichText::new("(folder missing)").color(colour))
        .on_hover_text(format!(
            "The folder {path} is gone (moved or deleted). What it deposited stands; to send, \
             rescan or repair from it, drop the folder where it is now onto the window."
        ))
}

/// Beside a *New version* badge whose metadata cannot be sent as it is (edits saved with
/// problems): why its Deposit is greyed out.
pub fn incomplete_note(ui: &mut egui::Ui, problems: usize) -> egui::Response {
    ui.weak("(metadata incomplete)").on_hover_text(format!(
        "The metadata has {}: select the row and fix {} in the details, then deposit the new \
         version.",
        crate::wording::count_of(problems as u64, "problem", "problems"),
        if problems == 1 { "it" } else { "them" }
    ))
}

/// Beside a deposit's badge, when the target makes drafts: what it made is not public yet.
pub fn draft_note(ui: &mut egui::Ui) -> egui::Response {
    ui.weak("(as draft)").on_hover_text(
        "Deposited as a draft: this target leaves what it makes a draft (a draft DOI, a record \
         not published), so nothing was made public. Review and publish it on its page (Open \
         record), unless done there since, or deposit it to a target of the same repository \
         that publishes.",
    )
}

/// Beside the badge of a row whose deposit is a copy's (the same key, one job for both,
/// not landed yet): whose job it is.
pub fn shared_note(ui: &mut egui::Ui, copy: &str) -> egui::Response {
    ui.weak(format!("(with {copy})")).on_hover_text(format!(
        "The same key as {copy} (a copy of its folder, with the same metadata): one deposit \
         for both, queued with {copy}. What it does is this row's too, and one record will \
         stand for both."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_that_ends_in_a_question_is_not_given_a_full_stop_too() {
        let failed = DedupStatus::Failed {
            cause: "could not reach the server: is that its address?".into(),
        };
        let text = hover(&failed);
        assert!(text.contains("its address? Retry re-queues"), "{text}");
        let changed = DedupStatus::ChangedSinceScan {
            cause: "changed since scan: a.csv: modified since it was scanned".into(),
        };
        let text = hover(&changed);
        assert!(text.contains("it was scanned. Press Rescan"), "{text}");
    }

    #[test]
    fn a_retry_countdown_comes_first_so_a_narrow_cell_keeps_it() {
        let waiting = DedupStatus::WaitingToRetry {
            at_ms: 1_015_000,
            cause: "server busy (HTTP 503)".into(),
            paused: false,
        };
        assert_eq!(text(&waiting, 1_000_000), "⟳ Retry in 15 s");
    }

    #[test]
    fn a_retry_waiting_while_paused_says_paused_not_a_countdown_stuck_at_0() {
        let waiting = DedupStatus::WaitingToRetry {
            at_ms: 1_000_000,
            cause: "server busy (HTTP 503)".into(),
            paused: true,
        };
        assert_eq!(text(&waiting, 2_000_000), "⟳ Retry · paused");
        assert!(hover(&waiting).contains("press ▶ Resume"));
    }
}
