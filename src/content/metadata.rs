//! Descriptive metadata of a dataset, aligned with the DataCite schema, and its validation.
//!
//! Metadata takes part in the content key, so it is normalised before it is keyed: strings are
//! trimmed and put in Unicode NFC, empty optional fields are dropped, ORCIDs are reduced to
//! their bare `0000-0000-0000-000X` form. Two spellings of the same metadata key the same.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::affiliation::{
    Affiliation, affiliation_field, affiliation_parts, normalized_affiliations,
    read_ror_and_affiliations,
};
use super::community::{EXAMPLE as COMMUNITY_EXAMPLE, community_name, community_problem};
use super::contributor::{Contributor, EXAMPLE as CONTRIBUTOR_EXAMPLE};
use super::dates::{DatasetDate, EXAMPLE as DATE_EXAMPLE};
use super::funding::{EXAMPLE as FUNDING_EXAMPLE, Funding};
use super::labelled::{join_labelled, read_labelled_parts};
use super::language::{keyed_language, language_problem};
use super::location::{EXAMPLE as LOCATION_EXAMPLE, Location};
use super::related::{EXAMPLE as RELATED_EXAMPLE, RelatedWork};
use super::ror::ror_address;

/// DataCite 4.x `resourceTypeGeneral` values accepted as a resource type.
pub const RESOURCE_TYPES: &[&str] = &[
    "Audiovisual",
    "Award",
    "Book",
    "BookChapter",
    "Collection",
    "ComputationalNotebook",
    "ConferencePaper",
    "ConferenceProceeding",
    "DataPaper",
    "Dataset",
    "Dissertation",
    "Event",
    "Image",
    "Instrument",
    "InteractiveResource",
    "Journal",
    "JournalArticle",
    "Model",
    "OutputManagementPlan",
    "PeerReview",
    "PhysicalObject",
    "Preprint",
    "Project",
    "Report",
    "Service",
    "Software",
    "Sound",
    "Standard",
    "StudyRegistration",
    "Text",
    "Workflow",
    "Other",
];

/// Whether `type=value` (in `text`, a creator or contributor as written) marks an
/// organisation (`organisation`, `organization`) or a person (`person`); any other value
/// is refused, naming the fix.
pub(super) fn is_organisation_type(value: &str, text: &str) -> Result<bool, String> {
    match value.trim().to_lowercase().as_str() {
        "organisation" | "organization" => Ok(true),
        "person" => Ok(false),
        _ => Err(format!(
            "'{text}': type={value} is not a creator's type: write type=organisation for an \
             organisation whose name has a comma (\"University of California, Berkeley; \
             type=organisation\"); a name without one is an organisation's already"
        )),
    }
}

/// A person or organisation credited for the dataset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Creator {
    /// `"Family, Given"` for a person, or an organisation's name.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orcid: Option<String>,
    /// An organisation's own ROR (`CERN; ror=01ggx4157`), keyed as its address, so that
    /// repositories link the dataset to the organisation itself. Left out of the keyed
    /// metadata when not given; a person is identified by `orcid` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ror: Option<String>,
    /// The organisations they belong to, in the order given; keyed as
    /// [`affiliation`](super::affiliation) says, so one keys as it did before there could be
    /// several.
    #[serde(flatten, with = "super::affiliation::keyed")]
    pub affiliations: Vec<Affiliation>,
    /// An organisation whose name has a comma ("University of California, Berkeley"),
    /// which would otherwise read as a person's `"Family, Given"`. Keyed only when set,
    /// and set only on such a name (see [`Creator::normalized`]), so that every other
    /// creator keys as it did before there was a way to say it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub organisation: bool,
}

impl Creator {
    /// A creator with just a name.
    pub fn named(name: impl Into<String>) -> Self {
        Creator {
            name: name.into(),
            ..Creator::default()
        }
    }

    /// `"Curie, Marie; orcid=...; affiliation=...; ror=..."`: the name, then optionally an
    /// ORCID iD and affiliations, each `affiliation=NAME` followed by its `ror=ID`; an
    /// organisation's own ROR is written before any affiliation (`CERN; ror=01ggx4157`).
    /// Whether the result can be sent is [`Metadata::problems`]' to say; only a text that
    /// cannot be read is refused here.
    pub fn parse(text: &str) -> Result<Creator, String> {
        let labels = [
            ("orcid", "..."),
            ("affiliation", "..."),
            ("ror", "..."),
            ("type", "organisation"),
        ];
        let (name, parts) = read_labelled_parts(text, labels, "Curie, Marie; orcid=...")?;
        let mut organisation = false;
        for (_, value) in parts.iter().filter(|(label, _)| *label == "type") {
            organisation = is_organisation_type(value, text)?;
        }
        // The last ORCID iD given wins, as a repeated part of any other text does.
        let orcid = parts.iter().rev().find(|(label, _)| *label == "orcid");
        let (ror, affiliations) = read_ror_and_affiliations(&name, &parts, text)?;
        Ok(Creator {
            name,
            orcid: orcid.map(|(_, value)| value.clone()),
            ror,
            affiliations,
            organisation,
        })
    }

    /// Whether it is marked an organisation where the mark says something: on a name with a
    /// comma (without one it is an organisation's already). What is keyed and written.
    pub fn is_marked_organisation(&self) -> bool {
        self.organisation && self.name.contains(',')
    }

    /// The family and given names of a person (`"Family, Given"`, each trimmed); `None` for
    /// an organisation: a name without a comma, or one marked an organisation.
    pub fn person_names(&self) -> Option<(&str, &str)> {
        if self.organisation {
            return None;
        }
        let (family, given) = self.name.split_once(',')?;
        Some((family.trim(), given.trim()))
    }

    /// As it is written: `Curie, Marie; orcid=...; affiliation=...; ror=...`, what
    /// [`Creator::parse`] reads back.
    pub fn describe(&self) -> String {
        // Its own ROR before any affiliation, where [`Creator::parse`] reads it back.
        let organisation = self.is_marked_organisation().then_some("organisation");
        let mut parts = vec![
            ("type", organisation),
            ("orcid", self.orcid.as_deref()),
            ("ror", self.ror.as_deref()),
        ];
        parts.extend(affiliation_parts(&self.affiliations));
        join_labelled(&self.name, &parts)
    }

    /// The keyed form: text trimmed and in Unicode NFC, an ORCID in its bare form, a ROR as
    /// its address, blank affiliations left out.
    pub fn normalized(&self) -> Creator {
        Creator {
            name: clean(&self.name),
            // Cleaned again after the prefix is cut and letters are upper-cased, so that
            // normalising twice changes nothing.
            orcid: clean_opt(&self.orcid)
                .map(|o| clean(&bare_orcid(&o)))
                .filter(|o| !o.is_empty()),
            // A ROR as its address; anything else kept as written, for `problems` to name.
            ror: clean_opt(&self.ror).map(|ror| ror_address(&ror).unwrap_or(ror)),
            affiliations: normalized_affiliations(&self.affiliations),
            organisation: self.organisation && clean(&self.name).contains(','),
        }
    }

    /// Nothing in it once normalised (an empty row of the window's form).
    pub fn is_blank(&self) -> bool {
        self.normalized() == Creator::default()
    }

    /// What is wrong with its ORCID iD, worded for the person who fixes it; `None` when
    /// there is none or it is valid.
    pub fn orcid_problem(&self) -> Option<String> {
        let orcid = self.normalized().orcid?;
        (!orcid_is_valid(&orcid)).then(|| {
            format!(
                "'{orcid}' is not a valid ORCID iD: expected 0000-0000-0000-000X with a \
                 correct check digit"
            )
        })
    }

    /// What is wrong with its own ROR, worded for the person who fixes it: not a ROR, or
    /// given to a person (`"Family, Given"`), whom an ORCID iD identifies. `None` when
    /// there is none or it can be sent.
    pub fn ror_problem(&self) -> Option<String> {
        let c = self.normalized();
        let ror = c.ror.as_deref()?;
        if let Err(why) = ror_address(ror) {
            return Some(why.explain(ror));
        }
        c.person_names().is_some().then(|| {
            format!(
                "{ror} names an organisation, but '{}' is written as a person's name: give \
                 the ROR to an affiliation (affiliation=NAME; ror=...), or, for an \
                 organisation whose name has a comma, say so (type=organisation)",
                c.name
            )
        })
    }

    /// What is wrong with the first of its affiliations' RORs that cannot be sent (see
    /// [`Affiliation::ror_problem`]); `None` when all can.
    pub fn affiliation_ror_problem(&self) -> Option<String> {
        self.normalized()
            .affiliations
            .iter()
            .find_map(Affiliation::ror_problem)
    }
}

/// Who may read a dataset's files once it is deposited. Its metadata (title, creators, ...)
/// is public in every case: repositories publish it, and DataCite's is public by design.
///
/// Open is the default and is left out of the keyed metadata, so a dataset that never said
/// anything about access keys as it always did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "files", rename_all = "lowercase")]
pub enum FileAccess {
    /// Anyone may read the files.
    #[default]
    Open,
    /// Only the owner and those the repository grants access (a request, a share link).
    Restricted,
    /// Restricted until `until` (`YYYY-MM-DD`), open from that day on.
    Embargoed { until: String },
}

impl FileAccess {
    pub fn is_open(&self) -> bool {
        *self == FileAccess::Open
    }

    /// `open`, `restricted` or `embargoed until YYYY-MM-DD`, as a person reads it.
    pub fn describe(&self) -> String {
        match self {
            FileAccess::Open => "open".into(),
            FileAccess::Restricted => "restricted".into(),
            FileAccess::Embargoed { until } => format!("embargoed until {until}"),
        }
    }

    /// The day the embargo ends (the files open), when there is one.
    pub fn embargo_until(&self) -> Option<&str> {
        match self {
            FileAccess::Embargoed { until } => Some(until),
            _ => None,
        }
    }
}

/// The publication years a deposit takes: four digits, as DataCite's `publicationYear` and
/// InvenioRDM's publication date are written. `lodge add --year` refuses any other at once.
pub const PUBLICATION_YEARS: std::ops::RangeInclusive<i32> = 1000..=9999;

/// Whether `date` is a calendar date written `YYYY-MM-DD` (2027-02-29 is not one).
pub fn is_calendar_date(date: &str) -> bool {
    date.len() == 10
        && date.is_ascii()
        && humantime::parse_rfc3339(&format!("{date}T00:00:00Z")).is_ok()
}

/// Today's date by the UTC calendar, `YYYY-MM-DD`.
pub fn today() -> String {
    let now = humantime::format_rfc3339(std::time::SystemTime::now()).to_string();
    now[..10].to_string()
}

/// Descriptive metadata of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub creators: Vec<Creator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publication_year: Option<i32>,
    #[serde(default)]
    pub publisher: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default = "default_resource_type")]
    pub resource_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Who may read the files; open (the default) is not written, see [`FileAccess`].
    #[serde(default, skip_serializing_if = "FileAccess::is_open")]
    pub access: FileAccess,
    /// Works this dataset is related to (the paper it supplements, the data it was derived
    /// from); none is not written, so a dataset without them keys as it did before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<RelatedWork>,
    /// Who paid for the work, and under which awards; none is not written, as for
    /// `related`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub funding: Vec<Funding>,
    /// Who else had a part in it, and in what role (contact person, data curator); none is
    /// not written, as for `related`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contributors: Vec<Contributor>,
    /// Dates other than the publication's (when the data were collected); none is not
    /// written, as for `related`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dates: Vec<DatasetDate>,
    /// Where the data were collected, or what places they are about; none is not written,
    /// as for `related`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// The communities (of an InvenioRDM site: Zenodo's communities) the dataset is asked
    /// to be included in, each by its short name; none is not written, as for `related`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub communities: Vec<String>,
    /// How the data were collected or made (instruments, sampling, processing), beside the
    /// description; none is not written, as for `related`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methods: Option<String>,
    /// The language of its content (texts, transcripts, labels), keyed as its ISO 639-3
    /// code (`eng`); none is not written, as for `related`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

fn default_resource_type() -> String {
    "Dataset".to_string()
}

impl Default for Metadata {
    fn default() -> Self {
        Metadata {
            title: String::new(),
            creators: Vec::new(),
            description: None,
            publication_year: None,
            publisher: String::new(),
            license: None,
            keywords: Vec::new(),
            resource_type: default_resource_type(),
            version: None,
            access: FileAccess::Open,
            related: Vec::new(),
            funding: Vec::new(),
            contributors: Vec::new(),
            dates: Vec::new(),
            locations: Vec::new(),
            communities: Vec::new(),
            methods: None,
            language: None,
        }
    }
}

/// One problem with one metadata field, worded for the person who has to fix it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldProblem {
    /// The field's name as the CLI and the JSON know it (`title`, `creators[0].orcid`, ...).
    pub field: String,
    pub message: String,
}

impl FieldProblem {
    /// The message without the command-line flag that fixes it (`(--title)`), for the
    /// window, where the field itself is beside the message.
    pub fn message_without_flag(&self) -> &str {
        match self.message.rfind(" (--") {
            Some(at) if self.message.ends_with(')') => &self.message[..at],
            _ => &self.message,
        }
    }
}

impl std::fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

fn clean(s: &str) -> String {
    s.trim().nfc().collect()
}

fn clean_opt(s: &Option<String>) -> Option<String> {
    s.as_deref().map(clean).filter(|s| !s.is_empty())
}

/// `https://orcid.org/0000-0002-1825-0097` or `0000-0002-1825-0097` -> the bare form.
fn bare_orcid(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_prefix("https://orcid.org/")
        .or_else(|| s.strip_prefix("http://orcid.org/"))
        .or_else(|| s.strip_prefix("orcid.org/"))
        .unwrap_or(s);
    // "ORCID: 0000-..." as CVs and signatures write it.
    let s = match s.get(..6) {
        Some(prefix) if prefix.eq_ignore_ascii_case("orcid:") => s[6..].trim_start(),
        _ => s,
    };
    let s = s.to_ascii_uppercase();
    // Sixteen characters without their hyphens, as some forms store them: put them back
    // (such a form was refused before, so no key changes).
    if s.len() == 16 && s.is_ascii() && s[..15].bytes().all(|b| b.is_ascii_digit()) {
        return [&s[0..4], &s[4..8], &s[8..12], &s[12..16]].join("-");
    }
    s
}

/// ISO 7064 11,2 check of an ORCID in its bare form.
pub(super) fn orcid_is_valid(bare: &str) -> bool {
    let groups: Vec<&str> = bare.split('-').collect();
    // Four groups of four ASCII characters (a byte length of 4 alone lets "éé" through).
    if groups.len() != 4 || groups.iter().any(|g| g.len() != 4 || !g.is_ascii()) {
        return false;
    }
    let chars: Vec<char> = groups.concat().chars().collect();
    let (body, check) = chars.split_at(15);
    if !body.iter().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let mut total = 0u32;
    for c in body {
        total = (total + c.to_digit(10).unwrap_or(0)) * 2;
    }
    let result = (12 - total % 11) % 11;
    let expected = if result == 10 {
        'X'
    } else {
        char::from_digit(result, 10).unwrap_or('?')
    };
    check[0] == expected
}

/// Each of `items` once, in their order, leaving out the blank ones (an empty line of the
/// window's one-a-line fields).
fn each_once<T: PartialEq>(items: impl Iterator<Item = T>, blank: impl Fn(&T) -> bool) -> Vec<T> {
    let mut kept: Vec<T> = Vec::new();
    for item in items {
        if !blank(&item) && !kept.contains(&item) {
            kept.push(item);
        }
    }
    kept
}

/// This year, by the UTC calendar: a publication year for a folder added today.
pub fn this_year() -> i32 {
    today()
        .get(..4)
        .and_then(|y| y.parse().ok())
        .unwrap_or(1970)
}

impl Metadata {
    /// The keywords as a repository is sent them: each once, in the order first given (a
    /// citation file may list one twice). The metadata, and its key, keep them as given.
    pub fn keywords_once(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.keywords
            .iter()
            .map(|k| k.as_str())
            .filter(|k| seen.insert(*k))
            .collect()
    }

    /// Fill each field this leaves empty from `other` (a citation file read again, say),
    /// and replace the creators or publication year this has invalid where `other` has
    /// them valid (the file fixed since); anything else this has stays. The names of the
    /// fields taken, in the order of the form.
    pub fn fill_lacking_from(&mut self, other: &Metadata) -> Vec<&'static str> {
        fn blank(s: &str) -> bool {
            s.trim().is_empty()
        }
        fn blank_opt(s: &Option<String>) -> bool {
            s.as_deref().is_none_or(blank)
        }
        let (mine, theirs) = (self.problems(), other.problems());
        // A field with a problem here and none in `other`.
        let fixed_there = |field: &str| {
            let bad = |problems: &[FieldProblem]| {
                problems.iter().any(|p| {
                    p.field == field
                        || p.field
                            .strip_prefix(field)
                            .is_some_and(|rest| rest.starts_with('['))
                })
            };
            bad(&mine) && !bad(&theirs)
        };
        let mut filled = Vec::new();
        if blank(&self.title) && !blank(&other.title) {
            self.title = other.title.clone();
            filled.push("title");
        }
        if self.creators.is_empty() && !other.creators.is_empty() {
            self.creators = other.creators.clone();
            filled.push("creators");
        } else if !other.creators.is_empty() && fixed_there("creators") {
            self.creators = other.creators.clone();
            filled.push("creators (in place of invalid ones)");
        }
        if blank_opt(&self.description) && !blank_opt(&other.description) {
            self.description = other.description.clone();
            filled.push("description");
        }
        if self.publication_year.is_none() && other.publication_year.is_some() {
            self.publication_year = other.publication_year;
            filled.push("publication year");
        } else if other.publication_year.is_some() && fixed_there("publication_year") {
            self.publication_year = other.publication_year;
            filled.push("publication year (in place of an invalid one)");
        }
        if blank(&self.publisher) && !blank(&other.publisher) {
            self.publisher = other.publisher.clone();
            filled.push("publisher");
        }
        if blank_opt(&self.license) && !blank_opt(&other.license) {
            self.license = other.license.clone();
            filled.push("license");
        }
        if self.keywords.is_empty() && !other.keywords.is_empty() {
            self.keywords = other.keywords.clone();
            filled.push("keywords");
        }
        if blank_opt(&self.version) && !blank_opt(&other.version) {
            self.version = other.version.clone();
            filled.push("version");
        }
        // File access is never empty: open is a choice too (and the key of a moved folder's
        // deposits). A file that says otherwise is named by `fields_differing_from`. So are
        // related works, contributors, dates, locations, communities, methods, the language
        // and funding (a `.zenodo.json`'s grants): a dataset added before Lodge read them
        // from a citation file lacks them, and taking them from the file would give a moved
        // folder another key, and a second deposit of what it deposited once.
        filled
    }

    /// The fields both this and `other` give, with other values (compared normalized).
    pub fn fields_differing_from(&self, other: &Metadata) -> Vec<&'static str> {
        /// Given on both sides, and not the same.
        fn differ<T: PartialEq>(a: &T, b: &T, given: impl Fn(&T) -> bool) -> bool {
            given(a) && given(b) && a != b
        }
        let (a, b) = (self.normalized(), other.normalized());
        [
            ("title", differ(&a.title, &b.title, |t| !t.is_empty())),
            (
                "creators",
                differ(&a.creators, &b.creators, |c| !c.is_empty()),
            ),
            (
                "description",
                differ(&a.description, &b.description, Option::is_some),
            ),
            (
                "publication year",
                differ(&a.publication_year, &b.publication_year, Option::is_some),
            ),
            (
                "publisher",
                differ(&a.publisher, &b.publisher, |p| !p.is_empty()),
            ),
            ("license", differ(&a.license, &b.license, Option::is_some)),
            (
                "keywords",
                differ(&a.keywords, &b.keywords, |k| !k.is_empty()),
            ),
            ("version", differ(&a.version, &b.version, Option::is_some)),
            // Named when `other` gives any: the dataset's own may be none (see
            // `fill_lacking_from`).
            (
                "related works",
                !b.related.is_empty() && a.related != b.related,
            ),
            (
                "contributors",
                !b.contributors.is_empty() && a.contributors != b.contributors,
            ),
            ("dates", !b.dates.is_empty() && a.dates != b.dates),
            (
                "locations",
                !b.locations.is_empty() && a.locations != b.locations,
            ),
            (
                "communities",
                !b.communities.is_empty() && a.communities != b.communities,
            ),
            ("methods", b.methods.is_some() && a.methods != b.methods),
            ("language", b.language.is_some() && a.language != b.language),
            ("funding", !b.funding.is_empty() && a.funding != b.funding),
            // Always given: open is a choice as much as the others.
            ("file access", differ(&a.access, &b.access, |_| true)),
        ]
        .into_iter()
        .filter_map(|(field, differs)| differs.then_some(field))
        .collect()
    }

    /// Set each of `fields` (named as [`Metadata::fields_differing_from`] names them) to
    /// `other`'s value of it.
    pub fn take_fields_from(&mut self, other: &Metadata, fields: &[&str]) {
        for field in fields {
            match *field {
                "title" => self.title = other.title.clone(),
                "creators" => self.creators = other.creators.clone(),
                "description" => self.description = other.description.clone(),
                "publication year" => self.publication_year = other.publication_year,
                "publisher" => self.publisher = other.publisher.clone(),
                "license" => self.license = other.license.clone(),
                "keywords" => self.keywords = other.keywords.clone(),
                "version" => self.version = other.version.clone(),
                "related works" => self.related = other.related.clone(),
                "contributors" => self.contributors = other.contributors.clone(),
                "dates" => self.dates = other.dates.clone(),
                "locations" => self.locations = other.locations.clone(),
                "communities" => self.communities = other.communities.clone(),
                "methods" => self.methods = other.methods.clone(),
                "language" => self.language = other.language.clone(),
                "funding" => self.funding = other.funding.clone(),
                "file access" => self.access = other.access.clone(),
                _ => {}
            }
        }
    }

    /// The form that is keyed and stored: trimmed, NFC, empty optionals dropped, bare ORCIDs.
    pub fn normalized(&self) -> Metadata {
        Metadata {
            title: clean(&self.title),
            creators: self
                .creators
                .iter()
                .map(Creator::normalized)
                .filter(|c| !c.is_blank())
                .collect(),
            description: clean_opt(&self.description),
            publication_year: self.publication_year,
            publisher: clean(&self.publisher),
            license: clean_opt(&self.license),
            keywords: self
                .keywords
                .iter()
                .map(|k| clean(k))
                .filter(|k| !k.is_empty())
                .collect(),
            resource_type: {
                let t = clean(&self.resource_type);
                if t.is_empty() {
                    default_resource_type()
                } else {
                    t
                }
            },
            version: clean_opt(&self.version),
            access: match &self.access {
                FileAccess::Embargoed { until } => FileAccess::Embargoed {
                    until: clean(until),
                },
                other => other.clone(),
            },
            related: each_once(self.related.iter().map(RelatedWork::normalized), |r| {
                r.relation.is_empty() && r.identifier.is_empty()
            }),
            funding: each_once(
                self.funding.iter().map(Funding::normalized),
                Funding::is_blank,
            ),
            contributors: each_once(
                self.contributors.iter().map(Contributor::normalized),
                Contributor::is_blank,
            ),
            dates: each_once(self.dates.iter().map(DatasetDate::normalized), |d| {
                d.date_type.is_empty() && d.date.is_empty()
            }),
            locations: each_once(
                self.locations.iter().map(Location::normalized),
                Location::is_blank,
            ),
            communities: each_once(
                self.communities.iter().map(|c| community_name(c)),
                String::is_empty,
            ),
            methods: clean_opt(&self.methods),
            language: clean_opt(&self.language).map(|l| keyed_language(&l)),
        }
    }

    /// Every problem with the required fields, one message each; empty when the metadata can
    /// be deposited. Checks the normalised form, so whitespace alone counts as missing.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let m = self.normalized();
        let mut out = Vec::new();
        let mut problem = |field: String, message: &str| {
            out.push(FieldProblem {
                field,
                message: message.to_string(),
            })
        };
        if m.title.is_empty() {
            problem(
                "title".into(),
                "is required: give the dataset a title (--title)",
            );
        }
        if m.creators.is_empty() {
            problem(
                "creators".into(),
                "at least one creator is required (--creator \"Family, Given\")",
            );
        }
        for (i, c) in m.creators.iter().enumerate() {
            // "," or " ; " is as empty as "": no letter or digit names anyone.
            if !c.name.chars().any(char::is_alphanumeric) {
                problem(
                    format!("creators[{i}].name"),
                    "is empty: write the name as \"Family, Given\" or an organisation's name \
                     (--creator \"Family, Given\")",
                );
            } else if let Some((family, _)) = c.person_names()
                && !family.chars().any(char::is_alphanumeric)
            {
                // ", Wei": a person with no family name, which repositories require.
                problem(
                    format!("creators[{i}].name"),
                    &format!(
                        "'{}' has no family name before its comma: write it \"Family, Given\" \
                         (one name alone is written \"Name,\"), or, for an organisation, \
                         without the comma or with type=organisation (--creator \"Family, \
                         Given\")",
                        c.name.trim()
                    ),
                );
            }
            if let Some(why) = c.orcid_problem() {
                problem(
                    format!("creators[{i}].orcid"),
                    &format!("{why} (--creator \"Family, Given; orcid=0000-0000-0000-000X\")"),
                );
            } else if c.orcid.is_some() && c.organisation {
                // As a ROR given to a person is: an ORCID iD names a person.
                problem(
                    format!("creators[{i}].orcid"),
                    &format!(
                        "an ORCID iD identifies a person, but '{}' is marked an organisation: \
                         leave the ORCID iD out, or write it as a person's \"Family, Given\" \
                         (without type=organisation)",
                        c.name
                    ),
                );
            }
            if let Some(why) = c.ror_problem() {
                problem(
                    format!("creators[{i}].ror"),
                    &format!(
                        "{why} (--creator \"Organisation; ror={}\")",
                        crate::content::ROR_EXAMPLE
                    ),
                );
            }
            for (k, a) in c.affiliations.iter().enumerate() {
                if let Some(why) = a.ror_problem() {
                    problem(
                        affiliation_field(&format!("creators[{i}]"), k, true),
                        &format!(
                            "{why} (--creator \"Family, Given; affiliation=NAME; ror={}\")",
                            crate::content::ROR_EXAMPLE
                        ),
                    );
                }
            }
        }
        // A field shown on one line (a listing, a repository's landing page) that holds a
        // line break or another control character: a pasted title, an ill-folded YAML
        // value. Its key would be valid but its record would read wrongly everywhere.
        let mut one_line = |field: String, value: &str, flag: &str| {
            if value.chars().any(char::is_control) {
                problem(
                    field,
                    &format!(
                        "has a line break or another control character: write it on one \
                         line ({flag})"
                    ),
                );
            }
        };
        one_line("title".into(), &m.title, "--title");
        for (i, c) in m.creators.iter().enumerate() {
            one_line(
                format!("creators[{i}].name"),
                &c.name,
                "--creator \"Family, Given\"",
            );
            for (k, a) in c.affiliations.iter().enumerate() {
                one_line(
                    affiliation_field(&format!("creators[{i}]"), k, false),
                    &a.name,
                    "--creator \"Family, Given; affiliation=...\"",
                );
            }
        }
        one_line("publisher".into(), &m.publisher, "--publisher");
        if let Some(license) = &m.license {
            one_line("license".into(), license, "--license");
        }
        for (i, k) in m.keywords.iter().enumerate() {
            one_line(format!("keywords[{i}]"), k, "--keyword");
        }
        if let Some(version) = &m.version {
            one_line("version".into(), version, "--version");
        }
        if m.publisher.is_empty() {
            problem(
                "publisher".into(),
                "is required: name the publishing institution or repository (--publisher)",
            );
        }
        match m.publication_year {
            None => problem(
                "publication_year".into(),
                "is required: give the year of publication (--year)",
            ),
            Some(y) if !PUBLICATION_YEARS.contains(&y) => problem(
                "publication_year".into(),
                &format!("must be a four-digit year, not {y} (--year)"),
            ),
            Some(_) => {}
        }
        if let FileAccess::Embargoed { until } = &m.access
            && !is_calendar_date(until)
        {
            let what = match until.trim() {
                "" => "an embargo needs the day it ends".to_string(),
                _ => format!("'{until}' is not a date"),
            };
            problem(
                "access.until".into(),
                &format!(
                    "{what}: give the embargo's end as YYYY-MM-DD, e.g. 2027-06-30 \
                     (--embargo-until)"
                ),
            );
        }
        for (i, r) in m.related.iter().enumerate() {
            if let Some(why) = r.problem() {
                problem(
                    format!("related[{i}]"),
                    &format!("{why} (--related \"{RELATED_EXAMPLE}\")"),
                );
            }
        }
        for (i, d) in m.dates.iter().enumerate() {
            if let Some(why) = d.problem() {
                // A mistyped type is fixed by the same date with the type meant.
                let example = d
                    .with_type_corrected()
                    .unwrap_or_else(|| DATE_EXAMPLE.to_string());
                problem(
                    format!("dates[{i}]"),
                    &format!("{why} (--date \"{example}\")"),
                );
            }
        }
        if let Some(why) = m.language.as_deref().and_then(language_problem) {
            problem("language".into(), &format!("{why} (--language en)"));
        }
        for (i, c) in m.communities.iter().enumerate() {
            if let Some(why) = community_problem(c) {
                problem(
                    format!("communities[{i}]"),
                    &format!("{why} (--community {COMMUNITY_EXAMPLE})"),
                );
            }
        }
        for (i, l) in m.locations.iter().enumerate() {
            if let Some(why) = l.problem() {
                // The person's own place, mended, where a decimal comma was all that was
                // wrong.
                let example = l
                    .corrected()
                    .unwrap_or_else(|| LOCATION_EXAMPLE.to_string());
                problem(
                    format!("locations[{i}]"),
                    &format!("{why} (--location \"{example}\")"),
                );
            }
        }
        for (i, c) in m.contributors.iter().enumerate() {
            if let Some(why) = c.problem() {
                // A mistyped type is fixed by the same entry with the type meant.
                let example = c
                    .with_role_corrected()
                    .unwrap_or_else(|| CONTRIBUTOR_EXAMPLE.to_string());
                problem(
                    format!("contributors[{i}]"),
                    &format!("{why} (--contributor \"{example}\")"),
                );
            }
        }
        for (i, f) in m.funding.iter().enumerate() {
            if let Some(why) = f.problem() {
                // A funder-id that is no identifier: the person's own entry without it.
                let example = f
                    .without_bad_funder_id()
                    .unwrap_or_else(|| FUNDING_EXAMPLE.to_string());
                problem(
                    format!("funding[{i}]"),
                    &format!("{why} (--funding \"{example}\")"),
                );
            }
        }
        if !RESOURCE_TYPES.contains(&m.resource_type.as_str()) {
            let message = match closest_resource_type(&m.resource_type) {
                Some(close) => format!(
                    "is not a DataCite resourceTypeGeneral: did you mean {close}? \
                     (--resource-type {close})"
                ),
                None => "is not a DataCite resourceTypeGeneral (for example Dataset, Software, \
                         Image, Text)"
                    .to_string(),
            };
            problem("resource_type".into(), &message);
        }
        out
    }
}

/// The resource type `text` was most likely meant to be: the same but for case
/// ("dataset"), or a near miss ("Datset", "Sofware").
fn closest_resource_type(text: &str) -> Option<&'static str> {
    crate::wording::closest(text, RESOURCE_TYPES.iter().copied(), 0.7)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `type=organisation` marks a name with a comma an organisation's: it reads back from
    /// what `show` prints, is keyed, and takes its ROR; on a name without a comma (an
    /// organisation's already) it is dropped from the keyed form, so that both spellings
    /// key the same and every creator without it keys as before.
    /// Every field `fields_differing_from` names is one `take_fields_from` takes: after it,
    /// nothing differs (`lodge add --from-citation` leaves no field of the file behind).
    #[test]
    fn every_field_named_as_differing_is_taken() {
        let one = |n: &str| Metadata {
            title: format!("Title {n}"),
            creators: vec![Creator::named(format!("Curie{n}, Marie"))],
            description: Some(format!("About {n}")),
            publication_year: Some(2020 + n.len() as i32),
            publisher: format!("Lab {n}"),
            license: Some(format!("License {n}")),
            keywords: vec![format!("k{n}")],
            version: Some(format!("v{n}")),
            access: match n.len() {
                1 => FileAccess::Open,
                _ => FileAccess::Restricted,
            },
            related: vec![RelatedWork::parse(&format!("References https://x.org/{n}")).unwrap()],
            contributors: vec![Contributor::parse(&format!("Doe{n}, Jane; role=Other")).unwrap()],
            dates: vec![DatasetDate::parse(&format!("Collected 202{}-01-01", n.len())).unwrap()],
            locations: vec![Location::parse(&format!("Place {n}")).unwrap()],
            communities: vec![format!("c{n}")],
            methods: Some(format!("Method {n}")),
            language: Some(if n.len() == 1 { "en" } else { "de" }.into()),
            funding: vec![Funding::parse(&format!("Funder {n}")).unwrap()],
            ..Metadata::default()
        };
        let (mut mine, theirs) = (one("a"), one("bb"));
        let differing = mine.fields_differing_from(&theirs);
        assert_eq!(differing.len(), 17, "{differing:?}");
        mine.take_fields_from(&theirs, &differing);
        assert!(mine.fields_differing_from(&theirs).is_empty());
    }

    /// ", Wei" is a person with no family name, which repositories require: a problem of
    /// the name, naming the fix. "Zhang," (one name alone) is not.
    #[test]
    fn a_person_with_no_family_name_is_a_problem_of_the_name() {
        let problems = |name: &str| {
            Metadata {
                creators: vec![Creator::named(name)],
                ..Metadata::default()
            }
            .problems()
            .into_iter()
            .filter(|p| p.field == "creators[0].name")
            .map(|p| p.message)
            .collect::<Vec<_>>()
        };
        assert_eq!(
            problems(", Wei"),
            [
                "', Wei' has no family name before its comma: write it \"Family, Given\" (one \
              name alone is written \"Name,\"), or, for an organisation, without the comma or \
              with type=organisation (--creator \"Family, Given\")"
            ]
        );
        assert!(problems("Zhang,").is_empty());
        assert!(problems("Curie, Marie").is_empty());
    }

    #[test]
    fn an_organisation_whose_name_has_a_comma_is_marked_and_keyed_as_one() {
        let berkeley =
            Creator::parse("University of California, Berkeley; type=Organization").unwrap();
        assert!(berkeley.organisation);
        assert_eq!(berkeley.person_names(), None);
        let keyed = berkeley.normalized();
        assert_eq!(
            keyed.describe(),
            "University of California, Berkeley; type=organisation"
        );
        assert_eq!(Creator::parse(&keyed.describe()).unwrap(), keyed);
        let json = serde_json::to_string(&keyed).unwrap();
        assert!(json.contains(r#""organisation":true"#), "{json}");
        let with_ror = Creator {
            ror: Some("01an7q238".into()),
            ..keyed.clone()
        };
        assert_eq!(with_ror.ror_problem(), None);
        let with_orcid = Creator {
            orcid: Some("0000-0002-1825-0097".into()),
            ..keyed.clone()
        };
        let m = Metadata {
            creators: vec![with_orcid],
            ..Metadata::default()
        };
        assert!(
            m.problems().iter().any(|p| p.field == "creators[0].orcid"
                && p.message
                    .starts_with("an ORCID iD identifies a person, but")),
            "{:?}",
            m.problems()
        );

        let cern = Creator::parse("CERN; type=organisation")
            .unwrap()
            .normalized();
        assert_eq!(cern, Creator::named("CERN"));
        let curie = Creator::parse("Curie, Marie; type=person").unwrap();
        assert_eq!(curie.person_names(), Some(("Curie", "Marie")));
        let json = serde_json::to_string(&curie.normalized()).unwrap();
        assert!(!json.contains("organisation"), "{json}");
    }

    /// An organisation's own ROR is written before any affiliation and reads back from what
    /// `show` prints; a mistyped one, or one given to a person, is a problem of its own
    /// field naming the fix.
    #[test]
    fn an_organisation_may_carry_its_own_ror_and_a_person_may_not() {
        let cern =
            Creator::parse("CERN; ror=01GGX4157; affiliation=ETH Zurich; ror=05a28rw58").unwrap();
        assert_eq!(cern.ror.as_deref(), Some("01GGX4157"));
        assert_eq!(cern.affiliations[0].ror.as_deref(), Some("05a28rw58"));
        let keyed = cern.normalized();
        assert_eq!(keyed.ror.as_deref(), Some("https://ror.org/01ggx4157"));
        assert_eq!(
            keyed.describe(),
            "CERN; ror=https://ror.org/01ggx4157; affiliation=ETH Zurich; \
             ror=https://ror.org/05a28rw58"
        );
        assert_eq!(Creator::parse(&keyed.describe()).unwrap(), keyed);
        assert_eq!(cern.ror_problem(), None);

        let problems = |creator: Creator| {
            let m = Metadata {
                creators: vec![creator],
                ..Metadata::default()
            };
            m.problems()
                .into_iter()
                .filter(|p| p.field == "creators[0].ror")
                .map(|p| p.message)
                .collect::<Vec<_>>()
        };
        let mistyped = Creator::parse("CERN; ror=01ggx4158").unwrap();
        let said = problems(mistyped);
        assert!(said[0].contains("'01ggx4158' is not a ROR id"), "{said:?}");
        let person = Creator {
            ror: Some("01ggx4157".into()),
            ..Creator::named("Curie, Marie")
        };
        let said = problems(person);
        assert!(
            said[0].contains("names an organisation, but 'Curie, Marie' is written as a person's"),
            "{said:?}"
        );
        assert_eq!(problems(Creator::named("CERN")), Vec::<String>::new());
    }

    #[test]
    fn a_line_break_in_a_field_shown_on_one_line_is_a_problem_but_not_in_the_description() {
        let mut m = Metadata {
            title: "Soil\ncores".into(),
            creators: vec![Creator {
                name: "Curie,\tMarie".into(),
                orcid: None,
                ror: None,
                affiliations: vec![Affiliation::named("Lab\r\nParis")],
                organisation: false,
            }],
            description: Some("Line one.\nLine two.".into()),
            publication_year: Some(2026),
            publisher: "Lab".into(),
            keywords: vec!["ok".into(), "bell\u{7}".into()],
            version: Some("1\n".into()),
            ..Metadata::default()
        };
        let fields: Vec<String> = m.problems().into_iter().map(|p| p.field).collect();
        assert_eq!(
            fields,
            [
                "title",
                "creators[0].name",
                "creators[0].affiliation",
                "keywords[1]"
            ],
            "a trailing line break is trimmed away, the description may run over lines"
        );
        m.title = "Soil cores".into();
        m.creators[0] = Creator::named("Curie, Marie");
        m.keywords.pop();
        assert!(m.problems().is_empty(), "{:?}", m.problems());
    }

    #[test]
    fn filling_from_a_fixed_citation_file_replaces_invalid_creators_and_year_only() {
        let creator = |name: &str, orcid: &str| Creator {
            name: name.into(),
            orcid: Some(orcid.into()),
            ror: None,
            affiliations: Vec::new(),
            organisation: false,
        };
        let mut stored = Metadata {
            title: "Kept".into(),
            creators: vec![creator("Curie, Marie", "0000-0002-1825-0098")],
            publication_year: Some(20261),
            ..Metadata::default()
        };
        let fixed = Metadata {
            title: "Other title".into(),
            creators: vec![creator("Curie, Marie", "0000-0002-1825-0097")],
            publication_year: Some(2026),
            ..Metadata::default()
        };
        let filled = stored.fill_lacking_from(&fixed);
        assert_eq!(
            filled,
            [
                "creators (in place of invalid ones)",
                "publication year (in place of an invalid one)"
            ]
        );
        assert_eq!(stored.creators, fixed.creators);
        assert_eq!(stored.publication_year, Some(2026));
        assert_eq!(stored.title, "Kept", "a valid field stays");

        // Valid values stay, and a file as invalid as the dataset changes nothing.
        let before = stored.clone();
        assert!(
            stored
                .fill_lacking_from(&Metadata {
                    creators: vec![creator("Noether, Emmy", "0000-0002-1825-0097")],
                    publication_year: Some(1999),
                    ..Metadata::default()
                })
                .is_empty()
        );
        assert_eq!(stored, before);
        let mut broken = Metadata {
            creators: vec![creator("Curie, Marie", "0000-0002-1825-0098")],
            ..Metadata::default()
        };
        let also_broken = Metadata {
            creators: vec![creator("Noether, Emmy", "1234")],
            ..Metadata::default()
        };
        assert!(
            !broken
                .fill_lacking_from(&also_broken)
                .contains(&"creators (in place of invalid ones)")
        );
        assert_eq!(broken.creators[0].name, "Curie, Marie");
    }

    #[test]
    fn every_problem_names_its_flag_and_the_window_gets_the_message_without_it() {
        let m = Metadata {
            creators: vec![Creator {
                name: ",".into(),
                orcid: Some("0000-0002-1825-0098".into()),
                ror: None,
                affiliations: Vec::new(),
                organisation: false,
            }],
            publication_year: Some(20261),
            resource_type: "Datset".into(),
            ..Metadata::default()
        };
        let problems = m.problems();
        assert_eq!(problems.len(), 6, "{problems:?}");
        for p in &problems {
            assert!(p.message.contains("(--"), "no flag named: {p}");
            let bare = p.message_without_flag();
            assert!(!bare.contains("--") && !bare.is_empty(), "{bare}");
            assert!(p.message.starts_with(bare));
        }
        let title = problems.iter().find(|p| p.field == "title").unwrap();
        assert_eq!(
            title.message_without_flag(),
            "is required: give the dataset a title"
        );
    }

    #[test]
    fn a_misspelt_resource_type_is_answered_with_the_one_meant() {
        let problem_with = |resource_type: &str| {
            let m = Metadata {
                resource_type: resource_type.into(),
                ..Metadata::default()
            };
            m.problems()
                .into_iter()
                .find(|p| p.field == "resource_type")
                .map(|p| p.message)
        };
        assert_eq!(problem_with("Dataset"), None);
        for (given, meant) in [
            ("dataset", "Dataset"),
            ("Datset", "Dataset"),
            ("sofware", "Software"),
        ] {
            let message = problem_with(given).expect("refused");
            assert!(
                message.contains(&format!("did you mean {meant}? (--resource-type {meant})")),
                "{given}: {message}"
            );
        }
        let far = problem_with("Spreadsheet").expect("refused");
        assert!(far.contains("for example Dataset, Software"), "{far}");
        assert!(!far.contains("did you mean"), "{far}");
    }

    #[test]
    fn orcid_check_digit_is_verified() {
        assert!(orcid_is_valid("0000-0002-1825-0097"));
        assert!(orcid_is_valid("0000-0001-5109-3700"));
        assert!(orcid_is_valid("0000-0002-1694-233X"));
        assert!(!orcid_is_valid("0000-0002-1825-0098"));
        assert!(!orcid_is_valid("0000-0002-1825"));
    }

    #[test]
    fn an_orcid_of_multibyte_characters_is_invalid_not_a_panic() {
        assert!(!orcid_is_valid("ÉÉ-ÉÉ-ÉÉ-ÉÉ"));
        assert!(!orcid_is_valid("€0-0002-1825-0097"));
        let m = Metadata {
            creators: vec![Creator {
                name: "Curie, Marie".into(),
                orcid: Some("éé-éé-éé-éé".into()),
                ror: None,
                affiliations: Vec::new(),
                organisation: false,
            }],
            ..Metadata::default()
        };
        assert!(m.problems().iter().any(|p| p.field == "creators[0].orcid"));
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        for orcid in [
            "https://orcid.org/ 0000",
            "i\u{307}",
            "https://orcid.org/",
            " x ",
        ] {
            let m = Metadata {
                creators: vec![Creator {
                    name: "N".into(),
                    orcid: Some(orcid.into()),
                    ror: None,
                    affiliations: Vec::new(),
                    organisation: false,
                }],
                ..Metadata::default()
            };
            let once = m.normalized();
            assert_eq!(once.normalized(), once, "{orcid:?}");
        }
    }

    #[test]
    fn a_creator_named_only_by_punctuation_is_named_empty() {
        for (name, empty) in [
            ("", true),
            (",", true),
            (" , ", true),
            ("CERN", false),
            ("Ōe, K", false),
        ] {
            let m = Metadata {
                creators: vec![Creator::named(name)],
                ..Metadata::default()
            };
            // (An empty creator is dropped, and then "creators" is missing.)
            let named = m.problems().iter().any(|p| p.field.starts_with("creators"));
            assert_eq!(named, empty, "{name:?}");
        }
    }

    #[test]
    fn every_missing_required_field_is_named_once() {
        let problems = Metadata::default().problems();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            vec!["title", "creators", "publisher", "publication_year"]
        );
    }

    #[test]
    fn normalisation_trims_and_reduces_orcid_urls() {
        let m = Metadata {
            title: "  Soil cores  ".into(),
            creators: vec![Creator {
                name: " Curie, Marie ".into(),
                orcid: Some("https://orcid.org/0000-0002-1825-0097".into()),
                ror: None,
                affiliations: vec![Affiliation::named("   ")],
                organisation: false,
            }],
            ..Metadata::default()
        }
        .normalized();
        assert_eq!(m.title, "Soil cores");
        assert_eq!(m.creators[0].orcid.as_deref(), Some("0000-0002-1825-0097"));
        assert_eq!(m.creators[0].affiliations, []);
        // "ORCID:" before it, or its hyphens left out: the same iD, valid and keyed alike.
        for written in [
            "ORCID: 0000-0002-1825-0097",
            "orcid:0000-0002-1825-0097",
            "0000000218250097",
            " https://orcid.org/000000021825009x ",
        ] {
            let c = Creator {
                orcid: Some(written.into()),
                ..Creator::named("Curie, Marie")
            };
            let bare = c.normalized().orcid.unwrap();
            assert!(bare.starts_with("0000-0002-1825-009"), "{written}: {bare}");
            assert!(
                orcid_is_valid(&bare) != bare.ends_with('X'),
                "{written}: {bare}"
            );
        }
        assert_eq!(
            bare_orcid("00000002182500971"),
            "00000002182500971",
            "17: left as is"
        );
    }

    #[test]
    fn an_embargo_date_must_be_a_calendar_date() {
        let with_until = |until: &str| Metadata {
            title: "T".into(),
            creators: vec![Creator::named("Curie, Marie")],
            publisher: "Lab".into(),
            publication_year: Some(2026),
            access: FileAccess::Embargoed {
                until: until.into(),
            },
            ..Metadata::default()
        };
        for good in ["2027-06-30", " 2028-02-29 "] {
            assert!(with_until(good).problems().is_empty(), "{good}");
        }
        for bad in ["2027-02-29", "30.06.2027", "2027-6-30", "", "next year"] {
            let problems = with_until(bad).problems();
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert_eq!(problems[0].field, "access.until");
            assert!(
                problems[0].message.contains("YYYY-MM-DD")
                    && problems[0].message.contains("--embargo-until"),
                "{}",
                problems[0].message
            );
        }
        // None given is said as missing, not as "'' is not a date".
        let problems = with_until(" ").problems();
        assert!(
            problems[0]
                .message
                .starts_with("an embargo needs the day it ends: give"),
            "{problems:?}"
        );
    }

    /// What a citation file gives that Lodge once did not read from it (related works,
    /// contributors, dates, funding) fills nothing in a dataset already added (a moved folder
    /// keeps its key), and is named as saying otherwise.
    #[test]
    fn a_citation_files_related_works_contributors_dates_and_funding_are_named_as_differing_not_filled_in()
     {
        let work = |line: &str| crate::content::RelatedWork::parse(line).unwrap();
        let cited = Metadata {
            related: vec![work("IsSupplementTo 10.1234/paper")],
            ..Metadata::default()
        };
        let mut none = Metadata::default();
        assert!(none.fill_lacking_from(&cited).is_empty());
        assert!(none.related.is_empty(), "a moved folder keeps its key");
        assert_eq!(none.fields_differing_from(&cited), ["related works"]);
        let same = Metadata {
            related: vec![work("issupplementto https://doi.org/10.1234/PAPER")],
            ..Metadata::default()
        };
        assert!(same.fields_differing_from(&cited).is_empty());
        assert!(
            same.fields_differing_from(&Metadata::default()).is_empty(),
            "a file with none says nothing of them"
        );

        // Contributors likewise.
        let cited = Metadata {
            contributors: vec![
                crate::content::Contributor::parse("Curie, Marie; role=ContactPerson").unwrap(),
            ],
            ..Metadata::default()
        };
        let mut none = Metadata::default();
        assert!(none.fill_lacking_from(&cited).is_empty());
        assert!(none.contributors.is_empty(), "a moved folder keeps its key");
        assert_eq!(none.fields_differing_from(&cited), ["contributors"]);

        // Dates likewise.
        let cited = Metadata {
            dates: vec![crate::content::DatasetDate::parse("Collected 2025").unwrap()],
            ..Metadata::default()
        };
        let mut none = Metadata::default();
        assert!(none.fill_lacking_from(&cited).is_empty());
        assert!(none.dates.is_empty(), "a moved folder keeps its key");
        assert_eq!(none.fields_differing_from(&cited), ["dates"]);

        // Funding (a `.zenodo.json`'s grants) likewise.
        let cited = Metadata {
            funding: vec![crate::content::Funding::of_zenodo_grant("777541").unwrap()],
            ..Metadata::default()
        };
        let mut none = Metadata::default();
        assert!(none.fill_lacking_from(&cited).is_empty());
        assert!(none.funding.is_empty(), "a moved folder keeps its key");
        assert_eq!(none.fields_differing_from(&cited), ["funding"]);
    }

    /// Open files are a choice, not an empty field: a citation file that restricts them
    /// fills nothing (a moved folder keeps its key, a re-added one what was chosen), and is
    /// named as saying otherwise.
    #[test]
    fn a_citation_files_restriction_fills_no_open_files_and_is_named_as_differing() {
        let mut m = Metadata::default();
        let cited = Metadata {
            access: FileAccess::Restricted,
            ..Metadata::default()
        };
        assert!(m.fill_lacking_from(&cited).is_empty());
        assert!(m.access.is_open());
        assert_eq!(m.fields_differing_from(&cited), ["file access"]);
        assert!(m.fields_differing_from(&Metadata::default()).is_empty());
    }
}
