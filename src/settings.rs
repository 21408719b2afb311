//! The user's defaults for new datasets (name, affiliation, license, publisher, a title with
//! the folder's name, the year added) and the database to use
//! (this computer's file, or a lab's shared PostgreSQL), kept in a JSON file in the platform
//! config directory, never in the dataset store. The window edits them; the command line
//! reads the database from them too, so both work on the same queue.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::content::{Affiliation, Creator, Metadata, template_problem, title_for_folder};

/// Defaults applied to the metadata of newly added folders.
///
/// A key the file has and these do not (a misspelt `publsher`) makes the file damaged, not
/// ignored: ignored, it would be dropped at the next save.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// "Family, Given".
    #[serde(default)]
    pub name: String,
    /// Your ORCID iD (`0000-0002-1825-0097`, or its orcid.org address); empty for none.
    #[serde(default)]
    pub orcid: String,
    #[serde(default)]
    pub affiliation: String,
    /// The affiliation's ROR (`https://ror.org/02en5vm52`), in any spelling; empty for none.
    #[serde(default)]
    pub affiliation_ror: String,
    /// The other organisations you belong to, after `affiliation`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_affiliations: Vec<OtherAffiliation>,
    /// SPDX identifier, e.g. CC-BY-4.0.
    #[serde(default)]
    pub license: String,
    /// The publishing institution or repository.
    #[serde(default)]
    pub publisher: String,
    /// A title for folders that bring none, `{folder}` standing for the folder's name
    /// ("Soil survey {folder}"); empty for none.
    #[serde(default)]
    pub title: String,
    /// Give a folder that brings no publication year the year it is added.
    #[serde(default)]
    pub year_when_added: bool,
    /// A `postgres://` URL to share one queue and dedup store with a lab's machines; empty
    /// for this computer's own file. `--db`/`LODGE_DB` win over it. Used from the next start.
    #[serde(default)]
    pub database: String,
}

/// Another organisation you belong to, as typed in Settings: its name and its ROR (in any
/// spelling; empty for none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherAffiliation {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub ror: String,
}

pub use crate::content::this_year;

/// The settings file: `settings.json` in the platform config directory
/// (`~/.config/lodge` on Linux).
pub fn settings_path() -> PathBuf {
    directories::ProjectDirs::from("org", "Lodge", "lodge")
        .map(|d| d.config_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."))
        .join("settings.json")
}

/// The file that is there while the window's deposits are paused by its Pause button (in
/// the data directory): a window closed paused opens paused, and `lodge status` says what
/// the window holds back.
pub fn window_paused_path() -> PathBuf {
    directories::ProjectDirs::from("org", "Lodge", "lodge")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."))
        .join("window-paused")
}

/// The file in which the window keeps what it remembers from one run to the next (in the
/// data directory), written as soon as it changes.
pub fn window_view_path() -> PathBuf {
    directories::ProjectDirs::from("org", "Lodge", "lodge")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."))
        .join("window-view.json")
}

/// Move a damaged settings file aside (`settings.damaged.json`, or `settings.damaged-2.json`
/// and on if that is taken), so a save does not put the defaults over what it held.
fn keep_damaged(path: &Path) -> Result<PathBuf, String> {
    let aside = (1..)
        .map(|n| match n {
            1 => path.with_file_name("settings.damaged.json"),
            n => path.with_file_name(format!("settings.damaged-{n}.json")),
        })
        .find(|p| !p.exists())
        .expect("a free name");
    std::fs::rename(path, &aside).map_err(|e| {
        format!(
            "the settings file {} could not be read, and keeping it as {} failed ({e}): \
             nothing was saved; fix it or delete it, then save again",
            path.display(),
            aside.display()
        )
    })?;
    Ok(aside)
}

impl Settings {
    /// Read the settings file; a missing file is the defaults, a damaged one is an error that
    /// names the file.
    pub fn load(path: &Path) -> Result<Settings, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "the settings file {} is damaged ({e}); fix it or delete it to start over",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(format!(
                "cannot read the settings file {}: {e}",
                path.display()
            )),
        }
    }

    /// Write the settings file (creating its folder), atomically, readable by its owner
    /// alone: the shared database's URL may hold its password.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        crate::config::credentials::write_private(path, &text)
            .map_err(|e| format!("cannot save settings to {}: {e}", path.display()))
    }

    /// Check the settings, then write them to `path` off the async threads: why not, if
    /// they were not (then nothing is written, and the window keeps what was typed).
    /// `read_before` is what the file held when the window last read or saved it: a file
    /// changed since (by hand, by another window) is not written over, and a damaged one is
    /// kept beside it, which the `Ok` note says.
    pub async fn save_checked(
        &self,
        path: &Path,
        read_before: &Settings,
    ) -> Result<Option<String>, String> {
        if let Some(problem) = self.problem() {
            return Err(problem);
        }
        let (settings, path, read_before) = (self.clone(), path.to_path_buf(), read_before.clone());
        tokio::task::spawn_blocking(move || settings.save_over(&path, &read_before))
            .await
            .unwrap_or_else(|e| Err(format!("saving the settings failed: {e}")))
    }

    /// [`Settings::save`] over what the file holds now, as [`Settings::save_checked`] says.
    fn save_over(&self, path: &Path, read_before: &Settings) -> Result<Option<String>, String> {
        let damaged = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => {
                return Err(format!(
                    "cannot read the settings file {}: {e}",
                    path.display()
                ));
            }
            Ok(text) => match serde_json::from_str::<Settings>(&text) {
                Ok(now) if now != *read_before && now != *self => {
                    return Err(format!(
                        "The settings file {} was changed since this window read it (by hand, \
                         or by another Lodge): nothing was saved, so that change is kept. \
                         Settings shows what the file holds now: make your changes again, \
                         then save.",
                        path.display()
                    ));
                }
                Ok(_) => false,
                Err(_) => true,
            },
        };
        let kept = match damaged {
            true => Some(keep_damaged(path)?),
            false => None,
        };
        self.save(path)?;
        Ok(kept.map(|kept| {
            format!(
                "The settings file could not be read, so it was kept as {} before the new \
                 one was written: copy from it what you need.",
                kept.display()
            )
        }))
    }

    /// What is wrong with these settings, if anything, naming the field and the fix.
    pub fn problem(&self) -> Option<String> {
        self.title_problem()
            .or_else(|| self.creator_problem())
            .or_else(|| self.database_problem())
    }

    /// What is wrong with your ORCID iD or an affiliation's ROR, if anything: not one, or
    /// a ROR without the affiliation's name. Such an id is not given to new folders.
    pub fn creator_problem(&self) -> Option<String> {
        let creator = self.default_creator()?;
        let orcid = creator
            .orcid_problem()
            .map(|why| format!("Your ORCID iD: {why}"));
        orcid.or_else(|| {
            let ror = creator.affiliation_ror_problem();
            ror.map(|why| format!("Affiliation's ROR: {why}"))
        })
    }

    /// The creator these settings give a folder that brings none, ROR and all.
    fn default_creator(&self) -> Option<Creator> {
        let name = self.name.trim();
        let given = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let typed = |name: &str, ror: &str| Affiliation {
            name: name.trim().to_string(),
            ror: given(ror),
        };
        let first = typed(&self.affiliation, &self.affiliation_ror);
        let more = self
            .more_affiliations
            .iter()
            .map(|a| typed(&a.name, &a.ror));
        (!name.is_empty()).then(|| Creator {
            name: name.to_string(),
            orcid: given(&self.orcid),
            // The default creator is you, a person.
            ror: None,
            affiliations: std::iter::once(first)
                .chain(more)
                .filter(|a| !a.is_blank())
                .collect(),
            organisation: false,
        })
    }

    /// What is wrong with the default title, if anything: a placeholder other than
    /// `{folder}`. Such a title is not given to new folders ([`Settings::apply_defaults`]).
    pub fn title_problem(&self) -> Option<String> {
        template_problem(self.title.trim(), "Title")
    }

    /// What is wrong with the shared database's URL, if anything. Only this decides whether
    /// it is used: a wrong default title must not send Lodge to this computer's own file.
    fn database_problem(&self) -> Option<String> {
        let db = self.database.trim();
        if db.is_empty() {
            return None;
        }
        match crate::store::StoreLocation::parse(db) {
            crate::store::StoreLocation::Postgres(url) if url::Url::parse(&url).is_ok() => None,
            _ => Some(format!(
                "Shared database: '{db}' is not a PostgreSQL URL; write \
                 postgres://USER@HOST:5432/DATABASE, or leave it empty to use this computer's file"
            )),
        }
    }

    /// The shared database these settings name, if any.
    pub fn shared_database(&self) -> Option<crate::store::StoreLocation> {
        let db = self.database.trim();
        (!db.is_empty() && self.database_problem().is_none())
            .then(|| crate::store::StoreLocation::parse(db))
    }

    /// Whether these defaults give a dataset anything ([`Settings::apply_defaults`]).
    pub fn gives_some_default(&self) -> bool {
        [&self.title, &self.publisher, &self.name, &self.license]
            .iter()
            .any(|v| !v.trim().is_empty())
            || self.year_when_added
    }

    /// Fill what `metadata` of the folder named `folder` leaves empty from these defaults,
    /// in `year` (the current one).
    pub fn apply_defaults(&self, metadata: &mut Metadata, folder: &str, year: i32) {
        let title = self.title.trim();
        // A title with an unknown placeholder would reach the repository with its braces:
        // the dataset is left without one (which it says), and Settings names the problem.
        if metadata.title.trim().is_empty() && !title.is_empty() && self.title_problem().is_none() {
            metadata.title = title_for_folder(title, folder);
        }
        let publisher = self.publisher.trim();
        if metadata.publisher.trim().is_empty() && !publisher.is_empty() {
            metadata.publisher = publisher.to_string();
        }
        if metadata.publication_year.is_none() && self.year_when_added {
            metadata.publication_year = Some(year);
        }
        if metadata.creators.is_empty()
            && let Some(mut creator) = self.default_creator()
        {
            // A wrong ORCID iD or ROR would make every new folder's metadata wrong: left out
            // (Settings names the problem), the name and affiliation still given.
            if creator.orcid_problem().is_some() {
                creator.orcid = None;
            }
            for affiliation in &mut creator.affiliations {
                if affiliation.ror_problem().is_some() {
                    affiliation.ror = None;
                }
            }
            metadata.creators.push(creator.normalized());
        }
        let license = self.license.trim();
        if metadata
            .license
            .as_deref()
            .is_none_or(|l| l.trim().is_empty())
            && !license.is_empty()
        {
            metadata.license = Some(license.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Settings;
    use crate::store::StoreLocation;

    fn with_database(db: &str) -> Settings {
        Settings {
            database: db.into(),
            ..Settings::default()
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_settings_file_is_readable_by_its_owner_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lodge/settings.json");
        // One written before (world-readable) is replaced by a private one.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        with_database("postgres://lab:pw@db.example.org/lodge")
            .save(&path)
            .unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            Settings::load(&path).unwrap().database,
            "postgres://lab:pw@db.example.org/lodge"
        );
    }

    #[test]
    fn settings_with_no_default_set_give_nothing_to_fill_in() {
        assert!(!Settings::default().gives_some_default());
        let blank_name = Settings {
            name: "  ".into(),
            ..Settings::default()
        };
        assert!(!blank_name.gives_some_default());
        for given in [
            Settings {
                name: "Curie, Marie".into(),
                ..Settings::default()
            },
            Settings {
                year_when_added: true,
                ..Settings::default()
            },
        ] {
            assert!(given.gives_some_default());
        }
    }

    #[test]
    fn defaults_fill_what_a_folder_brings_no_value_for_and_nothing_else() {
        let settings = Settings {
            name: "Curie, Marie".into(),
            publisher: "Soil lab".into(),
            title: "Soil survey {folder}".into(),
            year_when_added: true,
            ..Settings::default()
        };
        let mut bare = crate::content::Metadata::default();
        settings.apply_defaults(&mut bare, "plot-7", 2026);
        assert_eq!(bare.title, "Soil survey plot-7");
        assert_eq!(bare.publisher, "Soil lab");
        assert_eq!(bare.publication_year, Some(2026));
        assert_eq!(bare.creators[0].name, "Curie, Marie");
        assert!(bare.problems().is_empty(), "{:?}", bare.problems());

        let mut cited = crate::content::Metadata {
            title: "From its CITATION.cff".into(),
            publisher: "Its own".into(),
            publication_year: Some(2019),
            ..crate::content::Metadata::default()
        };
        settings.apply_defaults(&mut cited, "plot-8", 2026);
        assert_eq!(cited.title, "From its CITATION.cff");
        assert_eq!(cited.publisher, "Its own");
        assert_eq!(cited.publication_year, Some(2019));

        let mut untouched = crate::content::Metadata::default();
        Settings::default().apply_defaults(&mut untouched, "plot-9", 2026);
        assert_eq!(untouched, crate::content::Metadata::default());
    }

    /// A default title saved with an unknown placeholder (a hand-edited file, or one from
    /// before such titles were refused) gives new folders no title, and does not stop the
    /// shared database from being used.
    #[test]
    fn a_saved_title_with_an_unknown_placeholder_is_not_applied_and_leaves_the_database_alone() {
        let mut s = with_database("postgres://lab@db.example:5432/lodge");
        s.title = "Soil survey {name}".into();
        s.publisher = "Soil lab".into();
        assert!(
            s.problem()
                .unwrap()
                .starts_with("Title: {name} is not filled in"),
            "{:?}",
            s.problem()
        );
        assert_eq!(
            s.shared_database(),
            Some(StoreLocation::Postgres(
                "postgres://lab@db.example:5432/lodge".into()
            ))
        );
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-1", 2026);
        assert_eq!(metadata.title, "", "no title with braces in it");
        assert_eq!(
            metadata.publisher, "Soil lab",
            "the other defaults still apply"
        );
    }

    /// Your other affiliations follow the first on the default creator, in order, each
    /// with its ROR; an empty row gives nothing, and a mistyped ROR is named and left out.
    #[test]
    fn more_default_affiliations_follow_the_first_and_a_wrong_ror_is_named() {
        let other = |name: &str, ror: &str| super::OtherAffiliation {
            name: name.into(),
            ror: ror.into(),
        };
        let mut s = Settings {
            name: "Curie, Marie".into(),
            affiliation: "Sorbonne University".into(),
            more_affiliations: vec![other("ETH Zurich", "05a28rw58"), other(" ", "")],
            ..Settings::default()
        };
        assert_eq!(s.problem(), None);
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-1", 2026);
        let eth = crate::content::Affiliation {
            name: "ETH Zurich".into(),
            ror: Some("https://ror.org/05a28rw58".into()),
        };
        assert_eq!(
            metadata.creators[0].affiliations,
            [
                crate::content::Affiliation::named("Sorbonne University"),
                eth.clone()
            ]
        );
        // Saved and read back as written.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        s.save(&path).unwrap();
        assert_eq!(Settings::load(&path).unwrap(), s);

        s.more_affiliations[0].ror = "05a28rw59".into();
        let why = s.problem().unwrap();
        assert!(
            why.starts_with("Affiliation's ROR: '05a28rw59' is not a ROR id"),
            "{why}"
        );
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-2", 2026);
        assert_eq!(
            metadata.creators[0].affiliations[1],
            crate::content::Affiliation::named("ETH Zurich")
        );
    }

    #[test]
    fn a_default_orcid_and_affiliation_ror_are_given_keyed_and_wrong_ones_named_and_left_out() {
        let mut s = Settings {
            name: "Curie, Marie".into(),
            affiliation: "Sorbonne University".into(),
            affiliation_ror: " 02EN5VM52 ".into(),
            ..Settings::default()
        };
        assert_eq!(s.problem(), None);
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-1", 2026);
        assert_eq!(
            metadata.creators[0].affiliations[0].ror.as_deref(),
            Some("https://ror.org/02en5vm52")
        );

        s.orcid = "https://orcid.org/0000-0002-1825-0097".into();
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-1", 2026);
        assert_eq!(
            metadata.creators[0].orcid.as_deref(),
            Some("0000-0002-1825-0097")
        );
        s.orcid = "0000-0002-1825-0098".into();
        let why = s.problem().unwrap();
        assert!(
            why.starts_with("Your ORCID iD: '0000-0002-1825-0098' is not a valid ORCID iD"),
            "{why}"
        );
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-1", 2026);
        assert_eq!(metadata.creators[0].orcid, None, "left out");
        s.orcid = String::new();

        s.affiliation_ror = "02en5vm53".into();
        let why = s.problem().unwrap();
        assert!(
            why.starts_with("Affiliation's ROR: '02en5vm53' is not a ROR id"),
            "{why}"
        );
        let mut metadata = crate::content::Metadata::default();
        s.apply_defaults(&mut metadata, "plot-2", 2026);
        assert_eq!(
            metadata.creators[0].affiliations,
            [crate::content::Affiliation::named("Sorbonne University")]
        );
    }

    #[test]
    fn an_empty_shared_database_means_this_computers_file() {
        assert_eq!(with_database("  ").problem(), None);
        assert_eq!(with_database("").shared_database(), None);
    }

    #[test]
    fn a_postgres_url_names_the_shared_database() {
        let s = with_database(" postgres://lab@db.example:5432/lodge ");
        assert_eq!(s.problem(), None);
        assert_eq!(
            s.shared_database(),
            Some(StoreLocation::Postgres(
                "postgres://lab@db.example:5432/lodge".into()
            ))
        );
    }

    #[test]
    fn anything_else_is_a_problem_naming_the_field_and_the_fix() {
        let s = with_database("/home/me/lodge.db");
        let problem = s.problem().unwrap();
        assert!(problem.starts_with("Shared database:"), "{problem}");
        assert!(
            problem.contains("postgres://USER@HOST:5432/DATABASE"),
            "{problem}"
        );
        assert_eq!(s.shared_database(), None);
    }

    fn named(name: &str) -> Settings {
        Settings {
            name: name.into(),
            publisher: "Soil lab".into(),
            ..Settings::default()
        }
    }

    #[tokio::test]
    async fn a_save_over_a_damaged_settings_file_keeps_that_file_beside_the_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let damaged =
            r#"{"name": "Curie, Marie", "publisher": "My Lab", "year_when_added": "yes","#;
        std::fs::write(&path, damaged).unwrap();
        assert!(Settings::load(&path).unwrap_err().contains("is damaged"));

        let note = named("Doe, Jane")
            .save_checked(&path, &Settings::default())
            .await
            .unwrap()
            .expect("the kept file is named");
        let kept = dir.path().join("settings.damaged.json");
        assert!(note.contains(&kept.display().to_string()), "{note}");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), damaged);
        assert_eq!(Settings::load(&path).unwrap(), named("Doe, Jane"));

        // Damaged again: the first kept file stays, the second gets a name of its own.
        std::fs::write(&path, "{").unwrap();
        named("Roe, Ann")
            .save_checked(&path, &named("Doe, Jane"))
            .await
            .unwrap();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), damaged);
        let second = dir.path().join("settings.damaged-2.json");
        assert_eq!(std::fs::read_to_string(second).unwrap(), "{");
    }

    #[tokio::test]
    async fn a_settings_file_changed_since_it_was_read_is_not_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        named("Curie, Marie").save(&path).unwrap();
        // Edited by hand after the window read it.
        named("Marie Curie").save(&path).unwrap();

        let refused = named("Doe, Jane")
            .save_checked(&path, &named("Curie, Marie"))
            .await
            .unwrap_err();
        assert!(
            refused.contains("was changed since this window read it"),
            "{refused}"
        );
        assert_eq!(Settings::load(&path).unwrap(), named("Marie Curie"));

        // Read as it is now, the save goes; so does one that writes what the file holds,
        // and one where the file was deleted (to start over).
        named("Doe, Jane")
            .save_checked(&path, &named("Marie Curie"))
            .await
            .unwrap();
        assert_eq!(Settings::load(&path).unwrap(), named("Doe, Jane"));
        std::fs::remove_file(&path).unwrap();
        named("Roe, Ann")
            .save_checked(&path, &named("Doe, Jane"))
            .await
            .unwrap();
        assert_eq!(Settings::load(&path).unwrap(), named("Roe, Ann"));
    }

    #[test]
    fn a_misspelt_key_in_the_settings_file_is_named_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"name": "Curie, Marie", "publsher": "My Lab"}"#).unwrap();
        let said = Settings::load(&path).unwrap_err();
        assert!(said.contains("unknown field `publsher`"), "{said}");
        let said = {
            std::fs::write(&path, r#"{"more_affiliations": [{"nmae": "ETH"}]}"#).unwrap();
            Settings::load(&path).unwrap_err()
        };
        assert!(said.contains("unknown field `nmae`"), "{said}");
    }
}
