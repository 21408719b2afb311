//! Drag and drop, and paste: the overlay while files hover over the window, and handing
//! dropped or pasted folder paths to the service (which tells files from folders and refuses
//! folders added twice). Pasting a path (Ctrl+V) is the way in where nothing can be dropped
//! and no folder picker answers: a desktop without an XDG portal, a remote X session.

use std::path::{Path, PathBuf};

use egui::{Align2, Color32, FontId, Id, LayerId, Order};

use super::LodgeApp;
use crate::app::{Command, Notice, Update};

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

/// Send the folders pasted this frame (Ctrl+V while no text field is typed in and no dialog
/// is open) to the service; a notice for pasted text that names no folder.
pub fn take_pasted(app: &mut LodgeApp, ctx: &egui::Context) {
    if !app.model.ready
        || super::shortcuts::typing_text(ctx)
        || app.dialogs.confirm_remove.is_some()
        || app.settings.is_open()
    {
        return;
    }
    let pasted: Vec<String> = ctx.input(|i| {
        i.events
            .iter()
            .filter_map(|e| match e {
                egui::Event::Paste(text) => Some(text.clone()),
                _ => None,
            })
            .collect()
    });
    for text in pasted {
        let (folders, not_paths) = pasted_folders(&text, home().as_deref());
        if !folders.is_empty() {
            app.send(Command::AddFolders(folders));
        }
        if let Some(notice) = not_paths_notice(&not_paths) {
            app.model.apply(Update::Notice(notice));
        }
    }
}

/// The home folder, for a pasted `~/…`.
fn home() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
}

/// The folder paths in pasted text, one per line, as a terminal or a file manager's Copy
/// gives them: plain absolute paths, `file://` URIs (KDE), quoted paths (Windows' Copy as
/// path), `~/…` under `home`. And the lines that are none of those.
pub fn pasted_folders(text: &str, home: Option<&std::path::Path>) -> (Vec<PathBuf>, Vec<String>) {
    let (mut folders, mut not_paths) = (Vec::new(), Vec::new());
    for pasted in text.lines() {
        let line = pasted.trim();
        if line.is_empty() {
            continue;
        }
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| line.strip_prefix(*q).and_then(|l| l.strip_suffix(*q)))
            .unwrap_or(line);
        let path = if unquoted.starts_with("file://") {
            url::Url::parse(unquoted)
                .ok()
                .and_then(|u| u.to_file_path().ok())
        } else if let Some(rest) = unquoted.strip_prefix("~/") {
            home.map(|h| h.join(rest))
        } else if unquoted == "~" {
            home.map(PathBuf::from)
        } else {
            // The spaces a copy picks up around a path are not part of it, unless a folder
            // whose name ends in them is there.
            let kept = Path::new(pasted.trim_start());
            let path = match kept.as_os_str().len() > line.len() && kept.is_dir() {
                true => kept,
                false => Path::new(unquoted),
            };
            Some(path.to_path_buf()).filter(|p| p.is_absolute())
        };
        match path {
            Some(path) => folders.push(path),
            None => not_paths.push(line.to_string()),
        }
    }
    (folders, not_paths)
}

/// What to tell the person of pasted lines that are not folder paths, if any.
fn not_paths_notice(not_paths: &[String]) -> Option<Notice> {
    let first = not_paths.first()?;
    let shown: String = first.chars().take(60).collect();
    let cut = if shown.len() < first.len() { "…" } else { "" };
    let more = match not_paths.len() {
        1 => String::new(),
        n => format!(" and {} more lines", n - 1),
    };
    Some(Notice::warning(format!(
        "Pasted text is not a folder's path ('{shown}{cut}'{more}): to add a folder, paste \
         its full path, one per line (a file manager's Copy gives it), or drop the folder \
         onto the window."
    )))
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::pasted_folders;

    #[test]
    fn pasted_paths_uris_quoted_and_home_paths_are_folders_and_other_lines_are_not() {
        let home = Path::new("/home/marie");
        let text = "/data/run 1\r\nfile:///data/run%202\n\n  \"/data/run3\"  \n'/data/run4'\n\
                    ~/cores\nrelative/path\nhello world\n";
        let (folders, not_paths) = pasted_folders(text, Some(home));
        assert_eq!(
            folders,
            [
                "/data/run 1",
                "/data/run 2",
                "/data/run3",
                "/data/run4",
                "/home/marie/cores"
            ]
            .map(PathBuf::from)
        );
        assert_eq!(not_paths, ["relative/path", "hello world"]);
    }

    #[test]
    fn a_pasted_folder_whose_name_ends_in_spaces_keeps_them_where_it_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let spaced = dir.path().join("run 7  ");
        std::fs::create_dir(&spaced).unwrap();
        let text = format!("{}\n{}/plain  \n", spaced.display(), dir.path().display());
        let (folders, _) = pasted_folders(&text, None);
        assert_eq!(folders, [spaced, dir.path().join("plain")]);
    }

    #[test]
    fn a_home_path_without_a_known_home_is_not_taken_for_a_folder() {
        let (folders, not_paths) = pasted_folders("~/cores", None);
        assert!(folders.is_empty());
        assert_eq!(not_paths, ["~/cores"]);
    }

    #[test]
    fn the_notice_for_lines_that_are_not_paths_shows_the_first_cut_short_and_counts_the_rest() {
        let long = "x".repeat(80);
        let notice = super::not_paths_notice(&[long, "b".into(), "c".into()]).unwrap();
        assert!(
            notice.text.starts_with(&format!(
                "Pasted text is not a folder's path ('{}…' and 2 more lines)",
                "x".repeat(60)
            )),
            "{}",
            notice.text
        );
        assert!(super::not_paths_notice(&[]).is_none());
    }
}
