//! `lodge add` and `lodge scan`: folders in, keys out.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::Database;
use super::defaults::{WindowDefaults, defaults_hint};
use super::incomplete::{Incomplete, print_incomplete};
use super::output::{HashBar, shell_word};
use super::output::{say, say_err};
use super::stop_signal::{STOPPED_EXIT, StopFlag};
use crate::catalog::record_folder;
use crate::content::{
    Contributor, Creator, DatasetDate, FOLDER_PLACEHOLDER, FileAccess, Funding, Location, Metadata,
    PUBLICATION_YEARS, PreparedDataset, RelatedWork, SkippedEntry, community_name,
    is_calendar_date, metadata_from_folder, spdx_license_id, spdx_suggestion, template_problem,
    title_for_folder,
};
use crate::engine::{is_being_sent, owner_text};
use crate::store::{DatasetRow, JobRow, RemovedDataset, Store, StoreError, StoreLocation};
use crate::wording::{count_of, human_bytes};

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The dataset's folder; several folders are several datasets, with the flags below
    /// for each (and each folder's own CITATION.cff or .zenodo.json where it has one).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The title. `{folder}` in it becomes each folder's name, so several folders get a
    /// title each: `--title "Ocean run {folder}"`; without it, one folder only. `{folder}` is
    /// the one placeholder: `{name}`, `{}` and the like are refused, not sent as written.
    #[arg(long, allow_hyphen_values = true, value_parser = text_value)]
    pub title: Option<String>,
    /// "Family, Given", optionally with "; orcid=0000-0002-1825-0097; affiliation=Lab" and
    /// the affiliation's ROR ("; ror=https://ror.org/02en5vm52"); repeat "; affiliation=..."
    /// (each with its own "; ror=...") for several. An organisation's own ROR goes before
    /// any affiliation ("CERN; ror=01ggx4157"). Repeat --creator for several creators
    /// (they replace the ones already known).
    #[arg(long = "creator", value_name = "NAME", allow_hyphen_values = true, value_parser = text_value)]
    pub creators: Vec<String>,
    /// What the dataset is, for the record's abstract.
    #[arg(long, allow_hyphen_values = true, value_parser = text_value)]
    pub description: Option<String>,
    /// How the data were collected or made (instruments, sampling, processing), sent beside
    /// the description as its methods; --methods "" removes them.
    #[arg(long, allow_hyphen_values = true, value_parser = text_value)]
    pub methods: Option<String>,
    /// The language of the content (its texts, transcripts, labels): an ISO 639 code (en,
    /// eng) or an English name (English); --language "" removes it.
    #[arg(long)]
    pub language: Option<String>,
    /// Publication year.
    #[arg(long, value_parser = parse_year)]
    pub year: Option<i32>,
    /// The institution or repository that publishes it.
    #[arg(long, allow_hyphen_values = true, value_parser = text_value)]
    pub publisher: Option<String>,
    /// License, preferably an SPDX identifier (CC-BY-4.0).
    #[arg(long)]
    pub license: Option<String>,
    /// Repeat for several keywords (they replace the ones already known).
    #[arg(long = "keyword", value_name = "K", allow_hyphen_values = true, value_parser = text_value)]
    pub keywords: Vec<String>,
    /// DataCite resourceTypeGeneral (default Dataset).
    #[arg(long)]
    pub resource_type: Option<String>,
    /// The dataset's version, e.g. 1.0.
    #[arg(long, allow_hyphen_values = true, value_parser = text_value)]
    pub version: Option<String>,
    /// A work the dataset is related to: a DataCite relation type, then a DOI or an http(s)
    /// URL, e.g. "IsSupplementTo 10.1234/abc" (this dataset supplements that paper). Repeat
    /// for several (they replace the ones already known); --related "" removes them all.
    #[arg(long = "related", value_name = "RELATION ID")]
    pub related: Vec<String>,
    /// Who funded the work: the funder's name, then, optionally, its ROR or Crossref Funder
    /// ID (funder-id=...) and the award's number and title, e.g. "European Commission;
    /// award=101000001; award-title=Soil carbon" (Zenodo and InvenioRDM take an award they
    /// do not list only with both; one they list, by its number and the funder-id). Repeat for several funders or awards (they replace the ones already
    /// known); --funding "" removes them all.
    #[arg(
        long = "funding",
        value_name = "FUNDER[; funder-id=ID; award=N; award-title=T]"
    )]
    pub funding: Vec<String>,
    /// Someone who had a part in the dataset other than as its creator, and their role
    /// (a DataCite contributor type): "Curie, Marie; role=ContactPerson", optionally with
    /// "; orcid=...; affiliation=..." as --creator. Repeat for several (they replace the
    /// ones already known); --contributor "" removes them all.
    #[arg(long = "contributor", value_name = "NAME; role=ROLE", allow_hyphen_values = true, value_parser = text_value)]
    pub contributors: Vec<String>,
    /// A date of the dataset other than its publication: a DataCite date type, then a date
    /// (YYYY, YYYY-MM or YYYY-MM-DD) or a range, e.g. "Collected 2025-03-01/2025-06-30".
    /// Repeat for several (they replace the ones already known); --date "" removes them all.
    #[arg(long = "date", value_name = "TYPE DATE")]
    pub dates: Vec<String>,
    /// Where the data were collected, or a place they are about: its name, then, optionally,
    /// a point (lat=, lon=) and a box (box=WEST,SOUTH,EAST,NORTH), in decimal degrees, e.g.
    /// "Lake Zurich; lat=47.27; lon=8.65" or "box=5.9,45.8,10.5,47.8". Repeat for several
    /// (they replace the ones already known); --location "" removes them all.
    #[arg(long = "location", value_name = "PLACE; lat=LAT; lon=LON", allow_hyphen_values = true, value_parser = text_value)]
    pub locations: Vec<String>,
    /// A community of Zenodo (or another InvenioRDM site) to include the dataset in: its
    /// short name, the part after /communities/ in its address (or the address), e.g.
    /// soil-science. A deposit there asks the community's curators to include the published
    /// record. Repeat for several (they replace the ones already known); --community ""
    /// removes them all.
    #[arg(long = "community", value_name = "NAME")]
    pub communities: Vec<String>,
    /// Who may download the files once deposited: open (anyone), restricted (you and those
    /// you grant access) or embargoed (restricted until --embargo-until, then open). The
    /// record's metadata is public in every case.
    #[arg(long, value_enum)]
    pub access: Option<AccessFlag>,
    /// The day an embargo ends and the files open, YYYY-MM-DD (implies --access embargoed).
    #[arg(long, value_name = "DATE", value_parser = parse_embargo_until)]
    pub embargo_until: Option<String>,
    /// Fill what the folder's own metadata (CITATION.cff, .zenodo.json) and the flags leave
    /// empty from the window's Settings: your name and affiliation, license, publisher, a
    /// title with {folder}, the year added (as for a folder dropped on the window).
    #[arg(long)]
    pub defaults: bool,
    /// Take every field the folder's CITATION.cff (or .zenodo.json) gives in place of the
    /// dataset's: for a citation file edited since the folder was added. Flags given with
    /// it still set what they name.
    #[arg(long)]
    pub from_citation: bool,
}

/// A text flag's value, which may begin with '-' (a title "-80 °C freezer log", a
/// keyword "-omics"): one that is a flag itself (`--title --creator ...`, the title
/// forgotten) is refused rather than taken as the text. No text is a flag's name.
fn text_value(value: &str) -> Result<String, String> {
    let a_flag = value.len() > 2
        && value.starts_with("--")
        && value[2..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    match a_flag {
        true => Err(format!(
            "'{value}' is a flag, not text: the text goes right after the flag that takes it"
        )),
        false => Ok(value.to_string()),
    }
}

/// `--access`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AccessFlag {
    Open,
    Restricted,
    Embargoed,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Datasets by number, folder, name or key prefix (8 or more characters).
    pub datasets: Vec<String>,
    /// Every dataset.
    #[arg(long, conflicts_with = "datasets")]
    pub all: bool,
}

/// `--year`: a year of four digits, the range the metadata check takes
/// ([`PUBLICATION_YEARS`]). Any other (`26`, `0`, `twenty26`) is refused before anything is
/// added, rather than stored for every deposit to refuse.
fn parse_year(text: &str) -> Result<i32, String> {
    text.trim()
        .parse()
        .ok()
        .filter(|year| PUBLICATION_YEARS.contains(year))
        .ok_or_else(|| {
            format!(
                "'{text}' is not a year: a publication year is from {} to {}, e.g. 2026",
                PUBLICATION_YEARS.start(),
                PUBLICATION_YEARS.end()
            )
        })
}

/// `--embargo-until`: a calendar day, `YYYY-MM-DD`. One that is no day (`2027-13-01`,
/// `30.06.2027`) is refused before anything is added; one that has come is taken, with a
/// warning ([`embargo_note`]), as the metadata check takes it.
fn parse_embargo_until(text: &str) -> Result<String, String> {
    let day = text.trim();
    if !is_calendar_date(day) {
        return Err(format!(
            "'{text}' is not a date: give the day the embargo ends as YYYY-MM-DD, e.g. \
             2027-06-30"
        ));
    }
    Ok(day.to_string())
}

/// What a repeatable flag that lists items (`--related`, `--funding`, ...) says: `None`
/// when it is not given, else every item read by `parse` (they replace the ones the dataset
/// has), where `--flag ""` alone gives none (to take away one a citation file gave that
/// cannot be sent, say).
fn listed<T>(
    flag: &str,
    given: &[String],
    parse: impl Fn(&str) -> Result<T, String>,
) -> anyhow::Result<Option<Vec<T>>> {
    if given.is_empty() {
        return Ok(None);
    }
    let items = given
        .iter()
        .filter(|text| !text.trim().is_empty())
        .map(|text| parse(text).map_err(|why| anyhow::anyhow!("{flag} {why}")))
        .collect::<anyhow::Result<_>>()?;
    Ok(Some(items))
}

/// `creator` as `--creator` takes it, named `name`: `"Curie, Marie; orcid=...;
/// affiliation=..."`, what [`parse_creator`] reads back.
pub(super) fn creator_text(name: &str, creator: &Creator) -> String {
    let named = Creator {
        name: name.to_string(),
        ..creator.clone()
    };
    named.describe()
}

/// `"Curie, Marie; orcid=...; affiliation=...; ror=..."` -> a creator.
fn parse_creator(text: &str) -> anyhow::Result<Creator> {
    let name = text.split(';').next().unwrap_or("").trim();
    // An empty one (a shell variable that was not set) would replace every creator the
    // dataset has with a nameless one.
    if !name.chars().any(char::is_alphanumeric) {
        anyhow::bail!(
            "--creator '{text}': the name is empty: write it as \"Family, Given\" or an \
             organisation's name (the dataset's creators are left as they are)"
        );
    }
    Creator::parse(text).map_err(|why| anyhow::anyhow!("--creator {why}"))
}

impl AddArgs {
    /// Whether a flag gives this field (named as [`Metadata::fields_differing_from`] does).
    fn sets(&self, field: &str) -> bool {
        self.flag_for(field).is_some_and(|(_, given)| given)
    }

    /// The flag that gives the metadata field `field` (named as
    /// [`Metadata::fields_differing_from`] names it), and whether it was given.
    fn flag_for(&self, field: &str) -> Option<(&'static str, bool)> {
        Some(match field {
            "title" => ("--title", self.title.is_some()),
            "creators" => ("--creator", !self.creators.is_empty()),
            "description" => ("--description", self.description.is_some()),
            "methods" => ("--methods", self.methods.is_some()),
            "language" => ("--language", self.language.is_some()),
            "publication year" => ("--year", self.year.is_some()),
            "publisher" => ("--publisher", self.publisher.is_some()),
            "license" => ("--license", self.license.is_some()),
            "keywords" => ("--keyword", !self.keywords.is_empty()),
            "version" => ("--version", self.version.is_some()),
            "file access" => (
                "--access",
                self.access.is_some() || self.embargo_until.is_some(),
            ),
            "related works" => ("--related", !self.related.is_empty()),
            "contributors" => ("--contributor", !self.contributors.is_empty()),
            "dates" => ("--date", !self.dates.is_empty()),
            "locations" => ("--location", !self.locations.is_empty()),
            "communities" => ("--community", !self.communities.is_empty()),
            "funding" => ("--funding", !self.funding.is_empty()),
            _ => return None,
        })
    }

    /// Put the flags into `m`, for the folder named `folder`.
    fn apply(&self, m: &mut Metadata, folder: &str) -> anyhow::Result<()> {
        if let Some(t) = &self.title {
            m.title = title_for_folder(t, folder);
        }
        if !self.creators.is_empty() {
            m.creators = self
                .creators
                .iter()
                .map(|c| parse_creator(c))
                .collect::<anyhow::Result<_>>()?;
        }
        if let Some(d) = &self.description {
            m.description = Some(d.clone());
        }
        if let Some(methods) = &self.methods {
            // As `--related ""`: an empty text takes them away.
            m.methods = Some(methods.clone()).filter(|t| !t.trim().is_empty());
        }
        if let Some(language) = &self.language {
            m.language = Some(language.clone()).filter(|t| !t.trim().is_empty());
        }
        if let Some(y) = self.year {
            m.publication_year = Some(y);
        }
        if let Some(p) = &self.publisher {
            m.publisher = p.clone();
        }
        if let Some(l) = &self.license {
            m.license = Some(l.clone());
        }
        if !self.keywords.is_empty() {
            m.keywords = self.keywords.clone();
        }
        if let Some(r) = &self.resource_type {
            // Written as DataCite writes it ("dataset" is Dataset), as --license takes any case.
            m.resource_type = crate::content::RESOURCE_TYPES
                .iter()
                .find(|t| t.eq_ignore_ascii_case(r.trim()))
                .map_or_else(|| r.clone(), |t| t.to_string());
        }
        if let Some(v) = &self.version {
            m.version = Some(v.clone());
        }
        if let Some(access) = self.file_access()? {
            m.access = access;
        }
        if let Some(related) = listed("--related", &self.related, RelatedWork::parse)? {
            m.related = related;
        }
        if let Some(funding) = listed("--funding", &self.funding, Funding::parse)? {
            m.funding = funding;
        }
        let contributors = listed("--contributor", &self.contributors, Contributor::parse)?;
        if let Some(contributors) = contributors {
            m.contributors = contributors;
        }
        if let Some(dates) = listed("--date", &self.dates, DatasetDate::parse)? {
            m.dates = dates;
        }
        if let Some(locations) = listed("--location", &self.locations, Location::parse)? {
            m.locations = locations;
        }
        let community = |c: &str| Ok::<_, String>(community_name(c));
        if let Some(communities) = listed("--community", &self.communities, community)? {
            m.communities = communities;
        }
        Ok(())
    }

    /// What `--access` and `--embargo-until` say together, if either is given.
    fn file_access(&self) -> anyhow::Result<Option<FileAccess>> {
        let until = self.embargo_until.as_deref().map(str::trim);
        Ok(Some(match (self.access, until) {
            (None, None) => return Ok(None),
            (Some(AccessFlag::Open), None) => FileAccess::Open,
            (Some(AccessFlag::Restricted), None) => FileAccess::Restricted,
            (None | Some(AccessFlag::Embargoed), Some(until)) => FileAccess::Embargoed {
                until: until.to_string(),
            },
            (Some(AccessFlag::Embargoed), None) => anyhow::bail!(
                "--access embargoed needs the day the files open: add --embargo-until \
                 YYYY-MM-DD"
            ),
            (Some(other), Some(_)) => anyhow::bail!(
                "--embargo-until is for an embargo, and --access says {}: drop one of them",
                clap::ValueEnum::to_possible_value(&other)
                    .map(|v| v.get_name().to_string())
                    .unwrap_or_default()
            ),
        }))
    }
}

/// Name what the citation file `from` gives that no deposit will carry, and a DOI it
/// gives: one that is the dataset's own means a deposit would be its second record. What it
/// says of the file's authors only where they become the creators (`authors_taken`): not
/// where the dataset's creators stay, or `--creator` gives them.
fn say_not_carried(from: &Path, authors_taken: bool) {
    for doi in crate::content::dois_cited(from) {
        say!(
            "  note: {}",
            crate::wording::doi_cited(&from.display().to_string(), &doi)
        );
    }
    let give_instead = "with flags (--funding, --community, --contributor, ...)";
    if let Some(note) = crate::content::zenodo_json_beside_note(from, give_instead) {
        say!("  note: {note}");
    }
    if authors_taken {
        for note in crate::content::organisation_author_notes(from) {
            say!("  note: {note}");
        }
    }
    let give_related = "with --related \"References DOI-OR-URL\", repeating the related works \
                        already read (--related replaces them)";
    for note in crate::content::unsent_reference_notes(from, give_related) {
        say!("  note: {note}");
    }
    if let Some(note) = crate::content::release_day_note(from) {
        say!("  note: {note}");
    }
    let fields = crate::content::fields_not_carried(from);
    if !fields.is_empty() {
        say!(
            "  note: {} also gives {}, which Lodge does not send: add them on the record's \
             page once it is deposited",
            crate::wording::path_on_one_line(from),
            fields.join(", ")
        );
    }
    if fields
        .iter()
        .any(|f| f.starts_with(crate::content::UNSENT_GRANTS))
    {
        say!(
            "  note: such a grant is an id in Zenodo's list of awards, without its funder's \
             name: give the funder, its ROR or Crossref Funder ID and the award's number with \
             --funding \"European Commission; funder-id=00k4n6c32; award=NUMBER\", and a \
             deposit to Zenodo finds the award in its list"
        );
    }
}

fn canonical_folder(dir: &Path) -> anyhow::Result<PathBuf> {
    let path = std::fs::canonicalize(dir).with_context(|| {
        format!(
            "cannot find the folder {}: check the path (it must exist and be readable)",
            crate::wording::path_on_one_line(dir)
        )
    })?;
    // Before anything reads "the folder's" CITATION.cff or opens the database.
    if !path.is_dir() {
        anyhow::bail!(
            "{} is a file, not a folder: give the folder that holds the dataset's files \
             (a single file goes in a folder of its own)",
            crate::wording::path_on_one_line(dir)
        );
    }
    // A folder Lodge may not list: said of the folder, not of its citation file.
    crate::content::folder_opens(&path)?;
    Ok(path)
}

/// Scan, hash and record one folder with `metadata`, showing a progress bar; once `stop`
/// is raised the hashing stops and nothing of the folder is recorded.
pub(super) async fn scan_and_save(
    store: std::sync::Arc<Store>,
    root: PathBuf,
    metadata: Metadata,
    stop: &StopFlag,
) -> anyhow::Result<(i64, PreparedDataset)> {
    let stop = stop.clone();
    tokio::task::spawn_blocking(move || -> anyhow::Result<(i64, PreparedDataset)> {
        let watch = HashBar::new(&root, &stop);
        let recorded = record_folder(&store, &root, &metadata, &watch);
        watch.bar.finish_and_clear();
        let recorded = recorded?;
        Ok((recorded.id, recorded.prepared))
    })
    .await?
}

/// Say what the scan found. The metadata's problems are said here unless `problems_later`
/// (several folders added at once: they are said together at the end).
fn describe(
    store: &Store,
    id: i64,
    prepared: &PreparedDataset,
    before: Option<&DatasetRow>,
    problems_later: bool,
    defaults: Option<&WindowDefaults>,
) {
    let key = prepared.key();
    say!("dataset {id} key {key}");
    say!(
        "  {} — {}, {}",
        crate::wording::path_on_one_line(&prepared.report.root),
        count_of(prepared.files.len() as u64, "file", "files"),
        human_bytes(prepared.report.total_bytes)
    );
    if let Some(before) = before {
        match before.key {
            Some(k) if k == key => say!("  unchanged since the last scan"),
            Some(k) => {
                // What changed, when the earlier document is still in the store.
                let changes = store.document(&k).ok().flatten().map(|earlier| {
                    crate::wording::document_changes(&prepared.document.changes_since(&earlier))
                });
                match changes {
                    Some(what) => say!("  {what} (key was {})", k.short()),
                    None => say!("  changed since the last scan (key was {})", k.short()),
                }
            }
            None => {}
        }
    }
    let access = &prepared.document.metadata.access;
    if !access.is_open() {
        say!(
            "  files: {} (at repositories that enforce it: Zenodo, InvenioRDM)",
            access.describe()
        );
    }
    print_skipped(id, &prepared.report.skipped);
    let paths = prepared.document.manifest.iter().map(|e| e.path.as_str());
    if let Some(note) = crate::content::case_collision_note(paths) {
        say!("  note: {note}");
    }
    // Said when the key is new (a dataset added, or changed), not at every rescan of an
    // unchanged one; with the dataset whose deposit it was, and the target by its name.
    let unchanged = before.is_some_and(|b| b.key == Some(key));
    if !unchanged && let Ok(same) = store.results_with_fingerprint(&prepared.fingerprint().to_hex())
    {
        let names = super::target_arg::TargetNames::load();
        for r in same.iter().filter(|r| r.key != key.to_hex()) {
            let of = r
                .job_id
                .and_then(|j| store.job(j).ok())
                .and_then(|j| j.dataset_name.map(|name| format!(" (by {name}'s deposit)")))
                .unwrap_or_default();
            say!(
                "  note: the same data was already deposited under other metadata as {} on \
                 {}{of}",
                r.identifier,
                names.of(&r.target)
            );
        }
    }
    if let Some(note) = license_note(&prepared.document.metadata) {
        say!("  note: {note}");
    }
    for note in person_notes(&prepared.document.metadata) {
        say!("  note: {note}");
    }
    if let Some(note) = year_note(&prepared.document.metadata, crate::content::this_year()) {
        say!("  note: {note}");
    }
    if let Some(warning) = embargo_note(&prepared.document.metadata, &crate::content::today()) {
        say!("  warning: {warning}");
    }
    let problems = prepared.document.metadata.problems();
    if !problems.is_empty() && !problems_later {
        say!("  metadata incomplete; deposit will refuse it until these are fixed:");
        for p in &problems {
            say!("    {p}");
        }
        let m = &prepared.document.metadata;
        if let Some(fix) = creators_fix(m, &problems, &prepared.report.root) {
            say!("    {fix}");
        }
        let folder = folder_name(&prepared.report.root);
        let fills = defaults.map(|d| d.would_fill(&prepared.document.metadata, &folder));
        let root = prepared.report.root.to_string_lossy();
        if let Some(hint) = defaults_hint(&fills.unwrap_or_default(), &shell_word(&root)) {
            say!("    {hint}");
        }
    }
}

/// With several creators and a problem of one of them: `--creator` replaces them all, so
/// the fix its problem names would drop the others. The flags that give every creator
/// again, in order, for the person to correct the one named; and, where the folder at
/// `root` has a citation file, that fixing it there and taking it again does too.
pub(super) fn creators_fix(
    m: &Metadata,
    problems: &[crate::content::FieldProblem],
    root: &Path,
) -> Option<String> {
    let of_a_creator = problems.iter().any(|p| p.field.starts_with("creators["));
    if m.creators.len() < 2 || !of_a_creator {
        return None;
    }
    let flags: Vec<String> = m
        .creators
        .iter()
        .map(|c| format!("--creator {}", shell_word(&c.describe())))
        .collect();
    let cited = [crate::content::CITATION_CFF, crate::content::ZENODO_JSON]
        .into_iter()
        .find(|name| root.join(name).is_file());
    let or_the_file = cited
        .map(|name| {
            format!(
                "; or fix {name} and take it again: `lodge add {} --from-citation`",
                shell_word(&root.display().to_string())
            )
        })
        .unwrap_or_default();
    Some(format!(
        "--creator replaces every creator, so give all {} again, in order, correcting the one \
         named: {}{or_the_file}",
        m.creators.len(),
        flags.join(" ")
    ))
}

/// The name a `{folder}` title takes for the folder at `root`.
fn folder_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.to_string_lossy().into_owned())
}

/// What the scan left out, each with why; a long list (a `.DS_Store` in every folder, say)
/// names the notable ones (links, ignored files) up to a point and counts the rest.
fn print_skipped(id: i64, skipped: &[SkippedEntry]) {
    const LISTED: usize = 10;
    if skipped.len() <= LISTED {
        for s in skipped {
            say!("  skipped {} ({})", s.rel_path, s.why());
        }
        return;
    }
    let notable: Vec<&SkippedEntry> = skipped.iter().filter(|s| s.is_notable()).collect();
    for s in notable.iter().take(LISTED) {
        say!("  skipped {} ({})", s.rel_path, s.why());
    }
    let mut more = Vec::new();
    if notable.len() > LISTED {
        more.push(format!(
            "{} more (`lodge show {id}` lists every one)",
            notable.len() - LISTED
        ));
    }
    let routine = skipped.len() - notable.len();
    if routine > 0 {
        more.push(format!(
            "{} (.DS_Store, Thumbs.db, desktop.ini, .git, .lodgeignore)",
            count_of(routine as u64, "system file", "system files")
        ));
    }
    say!("  skipped as well: {}", more.join("; "));
}

/// What to say of a publication year more than a year after `this_year` (3000 for 2026, a
/// typo): valid, so not refused, but a repository would publish it as given.
pub(super) fn year_note(metadata: &Metadata, this_year: i32) -> Option<String> {
    let year = metadata.publication_year?;
    (year > this_year + 1).then(|| {
        format!(
            "the publication year {year} is years after this one ({this_year}): repositories \
             publish it as given; if it is a typo, fix it with --year"
        )
    })
}

/// What to say of an embargo whose end has come by `today` (`YYYY-MM-DD`): a valid date, so
/// not a metadata problem (an embargo set in time may end before a retry), but the files
/// would be open at once, and InvenioRDM and Zenodo refuse such an embargo.
pub(super) fn embargo_note(metadata: &Metadata, today: &str) -> Option<String> {
    let until = metadata.access.embargo_until()?;
    (is_calendar_date(until) && until <= today).then(|| {
        format!(
            "the embargo ends on {until}, which has come (today is {today}): the files would \
             be open at once, and Zenodo and InvenioRDM refuse such an embargo; give a later \
             day with --embargo-until, or --access open"
        )
    })
}

/// What to say of a license that is not an SPDX identifier: allowed, but repositories get
/// it as text only, not as a license they can link and filter by; with the identifier it
/// most likely means, where one is close.
pub(super) fn license_note(metadata: &Metadata) -> Option<String> {
    let license = metadata.license.as_deref()?;
    if spdx_license_id(license).is_some() {
        return None;
    }
    if crate::content::is_license_choice(license) {
        return Some(format!(
            "the license '{license}' names more than one license, so repositories get it as \
             text only (each takes one license by its SPDX identifier)"
        ));
    }
    let meant = match spdx_suggestion(license) {
        Some(id) => format!("; did you mean {id}? (--license {id})"),
        None => String::new(),
    };
    Some(format!(
        "the license '{license}' is not an SPDX identifier, so repositories get it as text \
         only{meant}"
    ))
}

/// What to say of each creator whose name looks like a person's written without the
/// comma: allowed (it may be an organisation's), but repositories take it as one.
pub(super) fn person_notes(metadata: &Metadata) -> Vec<String> {
    metadata
        .creators
        .iter()
        .filter_map(|c| {
            let has_orcid = c.orcid.as_deref().is_some_and(|o| !o.trim().is_empty());
            // One word with an ORCID iD: a person's family name alone, which cannot be
            // guessed into "Family, Given".
            if has_orcid && !c.name.contains(',') && c.name.split_whitespace().count() == 1 {
                let flag = creator_text(&format!("{}, GIVEN", c.name.trim()), c);
                return Some(format!(
                    "the creator '{}' has an ORCID iD, so is a person, but no comma, so \
                     repositories take it as an organisation's name; a person is written \
                     \"Family, Given\" (--creator {})",
                    c.name,
                    super::output::shell_word(&flag)
                ));
            }
            // A comma and an organisation's word: most likely an organisation whose name
            // has a comma, which would go as a person's family and given names.
            if let Some((family, given)) = c.person_names()
                && crate::content::has_organisation_word(&c.name)
            {
                let flag = Creator {
                    organisation: true,
                    ..c.clone()
                }
                .describe();
                return Some(format!(
                    "the creator '{}' has a comma, so repositories take it as a person (family \
                     name '{family}', given name '{given}'); for an organisation whose name has \
                     a comma, say so: --creator {}",
                    c.name,
                    super::output::shell_word(&flag)
                ));
            }
            let meant = crate::content::as_person(c)?;
            let flag = creator_text(&meant, c);
            Some(format!(
                "the creator '{}' has no comma, so repositories take it as an organisation's \
                 name; a person is written \"Family, Given\": did you mean \"{meant}\"? \
                 (--creator {})",
                c.name,
                super::output::shell_word(&flag)
            ))
        })
        .collect()
}

pub async fn add(db: &Database, args: AddArgs) -> anyhow::Result<ExitCode> {
    if let Some(problem) = args
        .title
        .as_deref()
        .and_then(|t| template_problem(t, &format!("--title {}", shell_word(t))))
    {
        anyhow::bail!("{problem}");
    }
    if let Some(title) = &args.title
        && args.dirs.len() > 1
        && !title.contains(FOLDER_PLACEHOLDER)
    {
        anyhow::bail!(
            "--title names one dataset, but {} folders were given: put {FOLDER_PLACEHOLDER} \
             in it for each folder's name (--title \"{title} {FOLDER_PLACEHOLDER}\"), add them \
             one at a time with a title each, or give each folder a CITATION.cff with its title",
            args.dirs.len()
        );
    }
    // Every folder first: a mistyped one adds nothing, and leaves no new database behind;
    // each one that is not a folder is named, not only the first.
    let mut roots: Vec<PathBuf> = Vec::with_capacity(args.dirs.len());
    let mut not_folders = Vec::new();
    for dir in &args.dirs {
        match canonical_folder(dir) {
            Ok(root) if !roots.contains(&root) => roots.push(root),
            Ok(_) => {}
            Err(e) => {
                // The system's cause in words ("no such file or folder"), not "(os error 2)".
                let said = crate::wording::with_causes(e.as_ref());
                not_folders.push(match known_dataset_hint(db, dir) {
                    Some(hint) => format!("{said}. {hint}"),
                    None => said,
                })
            }
        }
    }
    // A flag written after `--` is a folder to clap, as `--` says: said once, at the end.
    let flag_as_folder = args
        .dirs
        .iter()
        .any(|d| d.to_str().is_some_and(|t| t.starts_with("--")) && !d.exists());
    let after = match flag_as_folder {
        true => " (after `--` every word is a folder, a flag too: put the flags before the `--`)",
        false => "",
    };
    match not_folders.len() {
        0 => {}
        1 => anyhow::bail!("{}{after}", not_folders[0]),
        n => anyhow::bail!(
            "{n} of the {} folders given cannot be added, so none was:\n  {}{after}",
            args.dirs.len(),
            not_folders.join("\n  ")
        ),
    }
    // The flags are checked once, before any folder is hashed.
    args.apply(&mut Metadata::default(), "")?;
    let settings = crate::settings::settings_path();
    let defaults = match args.defaults {
        true => Some(WindowDefaults::required(&settings)?),
        // Only to say when they would complete a dataset.
        false => WindowDefaults::if_any(&settings),
    };
    let store = std::sync::Arc::new(db.open()?);
    let mut code = ExitCode::SUCCESS;
    let several = args.dirs.len() > 1;
    let mut incomplete = Vec::new();
    let stop = StopFlag::on_signal();
    let total = roots.len();
    let mut stopped = None;
    for (done, root) in roots.into_iter().enumerate() {
        let added = add_one(
            &store,
            &args,
            defaults.as_ref(),
            root.clone(),
            several,
            &stop,
        )
        .await;
        if stop.raised() {
            stopped = Some(stopped_adding(done, total, &root, added.is_ok()));
            if let Ok(Some(lacking)) = added {
                incomplete.push(lacking);
            }
            break;
        }
        if let Ok(Some(lacking)) = added {
            incomplete.push(lacking);
            continue;
        }
        if let Err(e) = added {
            // One folder's problem (an unreadable file, say) is reported; the others are
            // still added, each recorded whole or not at all.
            if args.dirs.len() == 1 {
                return Err(e);
            }
            let why = db
                .trouble(&e)
                .unwrap_or_else(|| crate::wording::with_causes(e.as_ref()));
            let root = root.display().to_string();
            // Most causes name the path already.
            match why.contains(&root) {
                true => say_err!("error: {why}"),
                false => say_err!("error: {root}: {why}"),
            }
            code = ExitCode::from(1);
        }
    }
    print_incomplete(
        &incomplete,
        &|name| format!("metadata incomplete for {name}; deposit will refuse it until fixed:"),
        &|n, names| {
            format!(
                "metadata incomplete, the same for {n} datasets ({names}); deposit will refuse \
                 them until fixed:"
            )
        },
    );
    if let Some(stopped) = stopped {
        say_err!("{stopped}");
        return Ok(ExitCode::from(STOPPED_EXIT));
    }
    Ok(code)
}

/// What `lodge add` says when stopped while adding folder `at` (0-based) of `total`:
/// which were added, that nothing of the one being hashed was recorded (unless it was,
/// `at_added`), and how to go on.
fn stopped_adding(at: usize, total: usize, root: &Path, at_added: bool) -> String {
    let added = at + usize::from(at_added);
    let left = total - added;
    let lost = match at_added {
        true => String::new(),
        false => format!(
            " (nothing of {} was recorded)",
            crate::wording::path_on_one_line(root)
        ),
    };
    if left == 0 {
        return "stopped, with every folder added".into();
    }
    if total == 1 {
        return format!("stopped{lost}: run the same `lodge add` again to add it");
    }
    let checked = match added {
        0 => String::new(),
        1 => ": the one added already is only checked, one stat a file".into(),
        _ => ": those added already are only checked, one stat a file".into(),
    };
    format!(
        "stopped: {added} of {total} folders added, {left} left{lost}. Run the same `lodge \
         add` again to add the rest{checked}"
    )
}

/// Fill what `metadata` (taken from an earlier entry of the folder) lacks from the folder's
/// citation file, when it has one, saying what was filled in. The file's notes (a DOI it
/// gives, an author read as an organisation) go with what it filled: this is the first
/// time it was taken in.
fn fill_from_citation(
    metadata: &mut Metadata,
    cited: Option<&(Metadata, PathBuf)>,
    creators_by_flag: bool,
) -> bool {
    let mut filled_any = false;
    if let Some((m, from)) = cited {
        let filled = metadata.fill_lacking_from(m);
        filled_any = !filled.is_empty();
        if !filled.is_empty() {
            say!(
                "{} filled in from {}",
                filled.join(", "),
                crate::wording::path_on_one_line(from)
            );
            let authors_taken =
                !creators_by_flag && filled.iter().any(|f| f.starts_with("creators"));
            say_not_carried(from, authors_taken);
        }
    }
    filled_any
}

/// When `dir` is not a folder here but names a dataset Lodge knows (`lodge add ds1 --title
/// ...` to retitle it, say), the folder to give instead. Never creates a database to look.
fn known_dataset_hint(db: &Database, dir: &Path) -> Option<String> {
    let name = dir.to_str()?;
    if let StoreLocation::File(path) = StoreLocation::from(db.path.clone())
        && !path.exists()
    {
        return None;
    }
    // Nor gives a PostgreSQL database without Lodge's tables any, to find nothing there.
    let dataset = db.open_existing().ok()?.find_dataset(name).ok()?;
    Some(format!(
        "'{name}' names dataset {}, though: to change that dataset, give its folder: \
         `lodge add {} ...`",
        dataset.id,
        shell_word(&dataset.path)
    ))
}

/// Add (or update) one folder: its metadata as known, else as its citation file says,
/// with the flags on top; then scan, hash, record, and say what happened.
///
/// With `several` folders being added, what the metadata lacks is not said here but
/// returned, to be said together with the others'.
async fn add_one(
    store: &std::sync::Arc<Store>,
    args: &AddArgs,
    defaults: Option<&WindowDefaults>,
    root: PathBuf,
    several: bool,
    stop: &StopFlag,
) -> anyhow::Result<Option<Incomplete>> {
    let root_text = root.to_string_lossy().into_owned();
    let before = store.dataset_by_path(&root_text)?;
    // `--creator` replaces the creators a citation file gives: what it says of its authors
    // is then beside the point.
    let creators_by_flag = !args.creators.is_empty();
    // The citation file, read on every add: the first prefills the metadata; a later one
    // fills only what the dataset's metadata still lacks (a file fixed since, say), so
    // what was given with flags or in the window stays.
    // Who may read the files, kept from a `.zenodo.json` whose other fields (or the
    // `CITATION.cff` beside it) could not be read.
    let mut kept_access = None;
    let cited = match metadata_from_folder(&root) {
        Ok(cited) => cited,
        // A citation file Lodge cannot read is a note, not a reason to refuse the
        // folder: the file is data too, and the metadata can come from the flags.
        Err(e) => {
            let given = ["title", "creators", "publisher", "publication year"]
                .iter()
                .any(|field| args.sets(field));
            say_err!(
                "warning: {e}. {}",
                match given {
                    true =>
                        "The folder is added with the metadata given here (--title, \
                             --creator, ...)",
                    false =>
                        "The folder is added without its metadata: give it with \
                              --title, --creator, ... (add the folder again with them), or \
                              in the window's details",
                }
            );
            kept_access = crate::content::access_kept_by_folder(&root);
            None
        }
    };
    let mut recited = None;
    // Whether the dataset's gaps were filled from the citation file just now (said).
    let mut filled_from_citation = false;
    // A folder moved here: its metadata comes with it, from the entry left behind.
    let moved_from = match &before {
        None => {
            let (store, root, stop) = (store.clone(), root.clone(), stop.clone());
            tokio::task::spawn_blocking(move || {
                // The folder is hashed here when some dataset's folder is gone: its bar.
                let watch = HashBar::new(&root, &stop);
                let found = crate::catalog::moved_from(&store, &root, &watch);
                watch.bar.finish_and_clear();
                found
            })
            .await??
        }
        Some(_) => None,
    };
    // A folder taken off the list and added again: its metadata comes back, as it was
    // when removed (the same files then make the same key, and no second record).
    let taken_up = match (&before, &moved_from) {
        (None, None) => crate::catalog::taken_up_again(store, &root_text)?,
        _ => None,
    };
    let mut metadata = match (&before, cited) {
        (None, cited) if taken_up.is_some() => {
            let (removed, mut metadata) = taken_up.expect("just matched");
            say!(
                "metadata taken from dataset {} ({}), this folder's until it was removed \
                 from the list",
                removed.id,
                removed.name
            );
            filled_from_citation =
                fill_from_citation(&mut metadata, cited.as_ref(), creators_by_flag);
            recited = cited;
            metadata
        }
        (None, cited) if moved_from.is_some() => {
            let old = moved_from.as_ref().expect("just matched");
            say!(
                "metadata taken from dataset {} ({}): the same files, whose folder {} is gone",
                old.id,
                old.name,
                old.path
            );
            let mut metadata = old.metadata.clone();
            filled_from_citation =
                fill_from_citation(&mut metadata, cited.as_ref(), creators_by_flag);
            recited = cited;
            metadata
        }
        (None, Some((m, from))) => {
            say!(
                "metadata prefilled from {}",
                crate::wording::path_on_one_line(&from)
            );
            say_not_carried(&from, !creators_by_flag);
            filled_from_citation = true;
            // Taken whole already: `--from-citation` has nothing more to take.
            recited = Some((m.clone(), from));
            m
        }
        (None, None) => match kept_access {
            Some(kept) => {
                say!("{}", kept.said_of(&root.join(crate::content::ZENODO_JSON)));
                Metadata {
                    access: kept.access,
                    ..Metadata::default()
                }
            }
            None => Metadata::default(),
        },
        (Some(d), cited) => {
            let mut metadata = d.metadata.clone();
            filled_from_citation =
                fill_from_citation(&mut metadata, cited.as_ref(), creators_by_flag);
            recited = cited;
            metadata
        }
    };
    // Asked for: what the citation file says otherwise than the dataset, flags aside, is
    // taken from it.
    if args.from_citation {
        let Some((cited, from)) = &recited else {
            anyhow::bail!(
                "--from-citation: {} has no CITATION.cff or .zenodo.json that Lodge could read \
                 metadata from (any problem with one is said above); leave out \
                 --from-citation, or give the fields with flags",
                crate::wording::path_on_one_line(&root)
            );
        };
        let differing: Vec<&str> = metadata
            .fields_differing_from(cited)
            .into_iter()
            .filter(|field| !args.sets(field))
            .collect();
        metadata.take_fields_from(cited, &differing);
        match differing.is_empty() {
            // What it filled in was said just above: nothing *else*.
            true if filled_from_citation => say!(
                "{} gives nothing else the dataset does not have",
                crate::wording::path_on_one_line(from)
            ),
            true => say!(
                "{} gives nothing the dataset does not have",
                crate::wording::path_on_one_line(from)
            ),
            false => say!(
                "{} taken from {}",
                differing.join(", "),
                crate::wording::path_on_one_line(from)
            ),
        }
    }
    let folder = folder_name(&root);
    args.apply(&mut metadata, &folder)?;
    if let Some(defaults) = defaults.filter(|_| args.defaults) {
        let filled = defaults.fill(&mut metadata, &folder);
        if !filled.is_empty() {
            say!(
                "{} filled in from the window's Settings ({})",
                filled.join(", "),
                crate::wording::path_on_one_line(defaults.file())
            );
        }
    }
    // What the citation file says otherwise than the dataset keeps, flags aside: said, so
    // an edited citation file that changes nothing does not go unnoticed.
    if let Some((cited, from)) = recited {
        let differing: Vec<&str> = metadata
            .fields_differing_from(&cited)
            .into_iter()
            .filter(|field| !args.sets(field))
            .collect();
        if !differing.is_empty() {
            let flags: Vec<&str> = (differing.iter())
                .filter_map(|f| args.flag_for(f).map(|(flag, _)| flag))
                .collect();
            say!(
                "  note: {} differs from the dataset in its {}; the dataset's stay (take the \
                 file's with --from-citation, or change them with {})",
                crate::wording::path_on_one_line(&from),
                differing.join(", "),
                flags.join(", ")
            );
        }
    }
    let (id, prepared) = scan_and_save(store.clone(), root, metadata, stop).await?;
    let hint = defaults.filter(|_| !args.defaults);
    describe(store, id, &prepared, before.as_ref(), several, hint);
    if before.is_none()
        && let Some(overlap) = crate::catalog::overlap(store, &root_text)?
    {
        say!(
            "  note: this folder {overlap}: the files in common go into the deposit of \
             each. If that is not what you meant, `lodge remove {id}` takes this one off the \
             list (its folder is not touched)"
        );
    }
    // A folder named with a number (a run, a year) is not found by that name: a command
    // given a number takes the dataset of that number.
    let name = folder_name(Path::new(&root_text));
    if before.is_none() && !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        say!(
            "  note: this folder's name, {name}, is a number: commands take a number as a \
             dataset's (`lodge show {name}` shows dataset {name}{}); name this one by its \
             number, {id}, or its folder, `{}`",
            match name
                .parse::<i64>()
                .ok()
                .and_then(|n| store.dataset(n).ok().flatten())
            {
                Some(other) if other.id != id => format!(", {}", other.name),
                _ => String::new(),
            },
            shell_word(&root_text)
        );
    }
    for old in crate::catalog::moved_here(store, id, &prepared.fingerprint())? {
        say!(
            "  note: the same files as dataset {} ({}), whose folder {} is gone: if this is \
             that folder moved here, `lodge remove {}` takes the old entry off the list (what \
             it deposited stays)",
            old.id,
            old.name,
            old.path,
            old.id
        );
    }
    let problems = prepared.document.metadata.problems();
    Ok((several && !problems.is_empty()).then(|| Incomplete {
        name: folder_name(&prepared.report.root),
        defaults_fill: hint
            .map(|d| d.would_fill(&prepared.document.metadata, &folder))
            .unwrap_or_default(),
        path: root_text,
        problems: problems.iter().map(ToString::to_string).collect(),
        // `add` said it already, as it read the folder.
        citation_error: None,
        added_elsewhere: None,
    }))
}

pub async fn scan(db: &Database, args: ScanArgs) -> anyhow::Result<ExitCode> {
    let store = std::sync::Arc::new(db.open_existing()?);
    let mut datasets = select_datasets(&store, &args.datasets, args.all)?;
    let defaults = WindowDefaults::if_any(&crate::settings::settings_path());
    let mut code = ExitCode::SUCCESS;
    // On a shared database a dataset's folder is the machine's that added it: scanned
    // here, even at the same path, it would be another folder, and become a dataset of
    // this machine's besides. `--all` leaves those to their machines; one named is refused.
    let mut elsewhere = Vec::new();
    for d in &datasets {
        if let Some(origin) = store.added_elsewhere(d.id)? {
            elsewhere.push((d.id, origin));
        }
    }
    datasets.retain(|d| !elsewhere.iter().any(|(id, _)| *id == d.id));
    if args.all && !elsewhere.is_empty() {
        say!(
            "left {}: each is scanned on the machine that added it",
            count_of(
                elsewhere.len() as u64,
                "dataset added on another machine",
                "datasets added on other machines"
            )
        );
    } else {
        for (id, origin) in &elsewhere {
            let path = store.dataset(*id)?.map(|d| d.path).unwrap_or_default();
            say_err!(
                "error: dataset {id} ({path}) was added on {origin}, whose folder it is: scan \
                 it there (`lodge scan {id}` on {origin}). To make the folder at that path on \
                 this machine a dataset of its own: `lodge add {}`",
                shell_word(&path)
            );
            code = ExitCode::from(1);
        }
    }
    let stop = StopFlag::on_signal();
    let total = datasets.len();
    for (done, d) in datasets.into_iter().enumerate() {
        let root = PathBuf::from(&d.path);
        let scanned = scan_and_save(store.clone(), root, d.metadata.clone(), &stop).await;
        if stop.raised() {
            let done = done + usize::from(scanned.is_ok());
            if let Ok((id, prepared)) = &scanned {
                describe(&store, *id, prepared, Some(&d), false, defaults.as_ref());
            }
            say_err!(
                "stopped: {done} of {} scanned; the others keep their last scan (run the \
                 same `lodge scan` again: a folder scanned already is only checked, one stat \
                 a file)",
                count_of(total as u64, "dataset", "datasets")
            );
            return Ok(ExitCode::from(STOPPED_EXIT));
        }
        match scanned {
            Ok((id, prepared)) => {
                describe(&store, id, &prepared, Some(&d), false, defaults.as_ref())
            }
            Err(e) => {
                let why = db
                    .trouble(&e)
                    .unwrap_or_else(|| crate::wording::with_causes(e.as_ref()));
                // Moved and added where it is now (or a copy listed): the old row is what
                // is left to take off, not a folder to add.
                let moved_to = match (Path::new(&d.path).exists(), d.key) {
                    (false, Some(key)) => {
                        crate::engine::first_copy_here(store.copies_of_key(&key, Some(d.id))?)
                    }
                    _ => None,
                };
                match &moved_to {
                    Some(copy) => say_err!(
                        "error: dataset {} ({}): the folder is gone; its content is on the list \
                         as dataset {} {} ({}), where it moved to or a copy: `lodge remove {}` \
                         takes the old row off (what it deposited stays)",
                        d.id,
                        d.path,
                        copy.dataset_id,
                        copy.name,
                        copy.path,
                        d.id
                    ),
                    None => say_err!("error: dataset {} ({}): {why}", d.id, d.path),
                }
                if !Path::new(&d.path).exists() && moved_to.is_none() {
                    say_err!(
                        "       to take it off the list (what it deposited stays): `lodge remove {}`",
                        d.id
                    );
                }
                code = ExitCode::from(1);
            }
        }
    }
    Ok(code)
}

/// Remove the datasets `selectors` name from the list, all or none: every name is looked up
/// before anything is removed, so a typo removes nothing. A job still on the queue for one
/// of them ends rejected when a worker reaches it (its folder is no longer listed).
pub fn remove(db: &Database, selectors: &[String]) -> anyhow::Result<ExitCode> {
    let store = db.open_existing()?;
    let datasets = select_datasets(&store, selectors, false)?;
    for d in datasets {
        // A job being sent now goes on to land (it sends the folder as scanned); one that
        // waits ends rejected when a worker reaches it.
        let (sending, active): (Vec<JobRow>, Vec<JobRow>) = store
            .jobs_of_dataset(d.id)?
            .into_iter()
            .filter(|j| !j.state.is_terminal())
            .partition(is_being_sent);
        let active: Vec<i64> = active.iter().map(|j| j.id).collect();
        // Its failed deposits that a copy still listed shared (the same key, one job for
        // both): that copy's to send now, by a deposit of its own (a retry of a removed
        // dataset's job is refused).
        let mut shared_failed = Vec::new();
        for job in store.jobs_of_dataset(d.id)? {
            if job.state == crate::store::JobState::Failed
                && job.dismissed_at.is_none()
                && d.key == Some(job.key)
                && let Some(copy) = store
                    .copies_of_key(&job.key, Some(d.id))?
                    .into_iter()
                    .next()
            {
                shared_failed.push((job, copy));
            }
        }
        let origin = store.added_elsewhere(d.id)?;
        // Named twice (by number and by folder, say): removed once.
        if !store.remove_dataset(d.id)? {
            continue;
        }
        say!(
            "removed dataset {} {} ({}); what it deposited stays in `lodge history`",
            d.id,
            d.name,
            crate::wording::on_one_line(&d.path)
        );
        // A shared database: the list is every machine's.
        if let Some(origin) = origin {
            say!(
                "  it was added on {origin}: it is off the list there too (`lodge add` of its \
                 folder on {origin} puts it back, with its deposits)"
            );
        }
        if !active.is_empty() {
            let ids: Vec<String> = active.iter().map(i64::to_string).collect();
            let (jobs, are, them) = match active.len() {
                1 => ("job", "is", "it"),
                _ => ("jobs", "are", "them"),
            };
            say!(
                "  note: {jobs} {} {are} still on the queue and will end rejected when \
                 run (add the folder again to deposit it, or `lodge cancel {}` ends {them} \
                 now)",
                ids.join(", "),
                ids.join(" ")
            );
        }
        for job in &sending {
            say!(
                "  note: job {} is being sent now by {}, and lands as the folder was scanned \
                 (`lodge history` shows how it ends)",
                job.id,
                owner_text(job.lease_owner.as_deref().unwrap_or("another process"))
            );
        }
        for (job, copy) in &shared_failed {
            say!(
                "  note: its failed deposit, job {}, was also dataset {} {}'s (the same key): \
                 `{}` sends it",
                job.id,
                copy.dataset_id,
                copy.name,
                super::target_arg::deposit_command(&store, &job.target, copy.dataset_id)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The datasets a command names, or all of them.
pub(super) fn select_datasets(
    store: &Store,
    selectors: &[String],
    all: bool,
) -> anyhow::Result<Vec<DatasetRow>> {
    if all {
        return Ok(store.datasets()?);
    }
    if selectors.is_empty() {
        anyhow::bail!(
            "name the datasets (number, folder, name or key prefix of 8 or more characters) or pass --all"
        );
    }
    let mut seen = std::collections::HashSet::new();
    let named: Vec<DatasetRow> = selectors
        .iter()
        .map(|s| {
            // A number is the dataset of that number, as Lodge's output names them, even
            // when the current folder holds a folder of that name (`./7` names that one).
            if s.bytes().all(|b| b.is_ascii_digit())
                && let Some(d) = store.dataset(s.parse().unwrap_or(-1))?
            {
                return Ok(d);
            }
            // A folder given as a path is matched by its canonical form.
            let canonical = std::fs::canonicalize(s)
                .ok()
                .map(|p| p.to_string_lossy().into_owned());
            match canonical {
                Some(c) if store.dataset_by_path(&c)?.is_some() => Ok(store.find_dataset(&c)?),
                _ => match store.find_dataset(s) {
                    Err(no_match @ StoreError::NoSuchDataset { .. }) => {
                        // The name or folder of a dataset taken off the list: say so, and
                        // where its traces are, not "no dataset matches".
                        let removed = removed_named(store, s)?;
                        if !removed.is_empty() {
                            return Err(removed_error(&removed));
                        }
                        // Another machine's dataset's folder (a shared database): named
                        // with its number and machine, not as a folder to add.
                        if let Some(c) = &canonical
                            && let Err(e @ StoreError::FolderOfAnotherMachine { .. }) =
                                store.find_dataset(c)
                        {
                            return Err(e.into());
                        }
                        // A folder on disk that no dataset is: it was never added.
                        if Path::new(s).is_dir() {
                            anyhow::bail!(
                                "{s} is a folder, but not one of Lodge's datasets: `lodge add \
                                 {}` makes it one (with its --title, --creator, --publisher \
                                 and --year)",
                                shell_word(s)
                            )
                        }
                        Err(no_match.into())
                    }
                    found => Ok(found?),
                },
            }
        })
        .collect::<anyhow::Result<_>>()?;
    // One dataset named twice (by number and by folder, say) is one item, reported once.
    Ok(named.into_iter().filter(|d| seen.insert(d.id)).collect())
}

/// The datasets taken off the list that `selector` names by the name or folder their
/// removal logged (a folder as typed or as its canonical form), oldest first.
pub(super) fn removed_named(store: &Store, selector: &str) -> anyhow::Result<Vec<RemovedDataset>> {
    let canonical = std::fs::canonicalize(selector)
        .ok()
        .map(|p| p.to_string_lossy().into_owned());
    Ok(store
        .removed_datasets()?
        .into_iter()
        .filter(|r| {
            r.name == selector || r.path == selector || canonical.as_deref() == Some(&r.path)
        })
        .collect())
}

/// The error for a command naming datasets that were taken off the list: which, and
/// where what they left is. One is the error its number gives.
fn removed_error(removed: &[RemovedDataset]) -> anyhow::Error {
    if let [one] = removed {
        return StoreError::RemovedDataset {
            id: one.id,
            folder: format!("{} ({})", one.name, one.path),
        }
        .into();
    }
    let named: Vec<String> = removed
        .iter()
        .map(|r| format!("{} {} ({})", r.id, r.name, r.path))
        .collect();
    let ids: Vec<String> = removed.iter().map(|r| r.id.to_string()).collect();
    anyhow::anyhow!(
        "datasets {} were removed from the list: `lodge history {}` shows what they left; \
         `lodge add` a folder to take it up again",
        named.join(", "),
        ids.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Affiliation;

    #[test]
    fn creator_flags_carry_orcid_affiliation_and_its_ror() {
        let c = parse_creator(
            "Curie, Marie; orcid=0000-0002-1825-0097; affiliation=Sorbonne; ror=02en5vm52",
        )
        .unwrap();
        assert_eq!(c.name, "Curie, Marie");
        assert_eq!(c.orcid.as_deref(), Some("0000-0002-1825-0097"));
        assert_eq!(
            c.affiliations,
            [Affiliation {
                name: "Sorbonne".into(),
                ror: Some("02en5vm52".into())
            }]
        );
        let why = parse_creator("Curie, Marie; email=x")
            .unwrap_err()
            .to_string();
        assert!(
            why.contains("use orcid=..., affiliation=..., ror=... or type=organisation"),
            "{why}"
        );
        // What `show` prints and the notes suggest reads back as the same creator.
        let again = parse_creator(&creator_text(&c.name, &c)).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn a_publication_year_years_ahead_is_noted_and_next_year_is_not() {
        let year = |y| Metadata {
            publication_year: Some(y),
            ..Metadata::default()
        };
        assert!(
            year_note(&year(3000), 2026)
                .unwrap()
                .contains("3000 is years after")
        );
        assert_eq!(year_note(&year(2027), 2026), None);
        assert_eq!(year_note(&year(1999), 2026), None);
        assert_eq!(year_note(&Metadata::default(), 2026), None);
    }

    #[test]
    fn an_embargo_whose_end_has_come_is_warned_of_and_a_later_one_is_not() {
        let until = |day: &str| Metadata {
            access: FileAccess::Embargoed { until: day.into() },
            ..Metadata::default()
        };
        for day in ["2020-01-01", "2026-03-14"] {
            let said = embargo_note(&until(day), "2026-03-14").expect(day);
            assert!(
                said.starts_with(&format!("the embargo ends on {day}, which has come")),
                "{said}"
            );
            assert!(said.contains("Zenodo and InvenioRDM refuse"), "{said}");
        }
        assert_eq!(embargo_note(&until("2026-03-15"), "2026-03-14"), None);
        // Not a date: the metadata check names it; open files have no embargo.
        assert_eq!(embargo_note(&until("2020-13-01"), "2026-03-14"), None);
        assert_eq!(embargo_note(&Metadata::default(), "2026-03-14"), None);
    }

    #[test]
    fn a_resource_type_in_another_case_is_written_as_datacite_writes_it() {
        use clap::Parser;
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            add: AddArgs,
        }
        for (given, kept) in [
            ("dataset", "Dataset"),
            (" SOFTWARE ", "Software"),
            ("Datset", "Datset"),
        ] {
            let flags = Flags::parse_from(["add", "dir", "--resource-type", given]);
            let mut m = Metadata::default();
            flags.add.apply(&mut m, "dir").unwrap();
            assert_eq!(m.resource_type, kept, "{given}");
        }
    }
}
