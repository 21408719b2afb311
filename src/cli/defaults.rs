//! The window's defaults on the command line: `lodge add --defaults` fills what a folder's
//! metadata and the flags leave empty from the window's Settings (your name and affiliation,
//! license, publisher, a title with `{folder}`, the year added), as the window does for a
//! dropped folder. Without the flag, a dataset refused for what those defaults would give
//! says so, so nobody types out a publisher the window already knows.

use std::path::{Path, PathBuf};

use crate::content::{Metadata, this_year};
use crate::settings::Settings;

/// The window's Settings, read from their file.
pub(super) struct WindowDefaults {
    settings: Settings,
    file: PathBuf,
}

impl WindowDefaults {
    /// For `--defaults`: the settings in `file`, or why they cannot fill anything.
    pub fn required(file: &Path) -> anyhow::Result<WindowDefaults> {
        let settings = Settings::load(file).map_err(|e| anyhow::anyhow!("--defaults: {e}"))?;
        if !settings.gives_some_default() {
            anyhow::bail!(
                "--defaults: the window's Settings ({}) give no defaults yet: set them in the \
                 window (Settings: your name, publisher, license, ...), or give the flags \
                 (--creator, --publisher, ...)",
                file.display()
            );
        }
        if let Some(problem) = settings.title_problem() {
            super::output::say_err!(
                "warning: the default title in the window's Settings is not given to folders: \
                 {problem}. Correct it in Settings, or give --title"
            );
        }
        // The name and affiliations are still given, without the wrong id.
        if let Some(problem) = settings.creator_problem() {
            super::output::say_err!(
                "warning: the window's Settings ({}) hold an id that is not given to folders, \
                 left out of the creator they fill in: {problem}. Correct it in Settings, or \
                 give --creator",
                file.display()
            );
        }
        Ok(WindowDefaults {
            settings,
            file: file.to_path_buf(),
        })
    }

    /// The settings in `file` when they can be read and give something; for hints only, so
    /// a settings file that cannot be read is no reason to say anything here.
    pub fn if_any(file: &Path) -> Option<WindowDefaults> {
        let settings = Settings::load(file).ok()?;
        settings.gives_some_default().then(|| WindowDefaults {
            settings,
            file: file.to_path_buf(),
        })
    }

    /// Fill what `metadata` of the folder named `folder` leaves empty; the fields filled.
    pub fn fill(&self, metadata: &mut Metadata, folder: &str) -> Vec<&'static str> {
        // Only what is empty: a creator or year given but invalid is the user's to correct.
        let mut before = metadata.clone();
        self.settings.apply_defaults(metadata, folder, this_year());
        // Named as a citation file's filling is: the two differ only where `before` was
        // empty, so this takes exactly those.
        before.fill_lacking_from(metadata)
    }

    /// The fields these defaults would fill in `metadata` (of the folder named `folder`)
    /// when that makes it less incomplete; empty when they would not help.
    pub fn would_fill(&self, metadata: &Metadata, folder: &str) -> Vec<&'static str> {
        let mut filled = metadata.clone();
        let fields = self.fill(&mut filled, folder);
        match filled.problems().len() < metadata.problems().len() {
            true => fields,
            false => Vec::new(),
        }
    }

    /// Where they are kept.
    pub fn file(&self) -> &Path {
        &self.file
    }
}

/// The hint for datasets whose metadata `--defaults` would complete: `folders`, shell
/// words joined, are what `lodge add` is given.
pub(super) fn defaults_hint(fields: &[&str], folders: &str) -> Option<String> {
    (!fields.is_empty()).then(|| {
        format!(
            "or with `lodge add {folders} --defaults`, which fills {} from the window's \
             Settings",
            fields.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(dir: &Path, settings: &Settings) -> PathBuf {
        let file = dir.join("settings.json");
        settings.save(&file).unwrap();
        file
    }

    #[test]
    fn defaults_fill_only_what_is_empty_and_name_what_they_filled() {
        let dir = tempfile::tempdir().unwrap();
        let file = saved(
            dir.path(),
            &Settings {
                name: "Curie, Marie".into(),
                publisher: "Soil lab".into(),
                license: "CC-BY-4.0".into(),
                ..Settings::default()
            },
        );
        let defaults = WindowDefaults::required(&file).unwrap();
        let mut m = Metadata {
            title: "Run 1".into(),
            license: Some("MIT".into()),
            ..Metadata::default()
        };
        assert_eq!(defaults.would_fill(&m, "run1"), ["creators", "publisher"]);
        assert_eq!(defaults.fill(&mut m, "run1"), ["creators", "publisher"]);
        assert_eq!(m.creators[0].name, "Curie, Marie");
        assert_eq!(m.publisher, "Soil lab");
        assert_eq!(m.license.as_deref(), Some("MIT"), "a given license stays");
    }

    #[test]
    fn defaults_that_would_not_complete_anything_give_no_hint() {
        let dir = tempfile::tempdir().unwrap();
        let file = saved(
            dir.path(),
            &Settings {
                license: "CC-BY-4.0".into(),
                ..Settings::default()
            },
        );
        let defaults = WindowDefaults::if_any(&file).unwrap();
        let m = Metadata::default();
        assert!(defaults.would_fill(&m, "run1").is_empty());
        assert!(defaults_hint(&[], "ds").is_none());
    }

    #[test]
    fn defaults_asked_for_with_none_set_or_a_damaged_file_are_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let none = saved(dir.path(), &Settings::default());
        let e = WindowDefaults::required(&none).err().unwrap().to_string();
        assert!(e.contains("give no defaults yet"), "{e}");
        assert!(e.contains(&none.display().to_string()), "{e}");
        assert!(WindowDefaults::if_any(&none).is_none());

        std::fs::write(&none, "{ not json").unwrap();
        let e = WindowDefaults::required(&none).err().unwrap().to_string();
        assert!(e.contains("is damaged"), "{e}");
        assert!(WindowDefaults::if_any(&none).is_none());
    }
}
