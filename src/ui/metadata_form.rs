//! The metadata form of the details panel: one field per DataCite property, each with its
//! validation message right next to it. The messages come from `Metadata::problems()` (and
//! a year that is not a number); the form holds text only.

use egui::{Color32, RichText};

use crate::content::{
    Affiliation, Contributor, Creator, DatasetDate, FieldProblem, FileAccess, Funding, Location,
    Metadata, RESOURCE_TYPES, RelatedWork, affiliation_field, as_person, language_shown,
    ror_address, ror_id, spdx_license_id, spdx_suggestion,
};

/// One creator's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatorFields {
    pub name: String,
    pub orcid: String,
    /// An organisation's own ROR, in any spelling.
    pub ror: String,
    /// One row each, in order; always at least one, so there is a box to type the first in.
    pub affiliations: Vec<AffiliationFields>,
    /// An organisation whose name has a comma (see [`Creator::organisation`]): offered
    /// under a name with a comma only.
    pub organisation: bool,
}

impl Default for CreatorFields {
    fn default() -> Self {
        CreatorFields {
            name: String::new(),
            orcid: String::new(),
            ror: String::new(),
            affiliations: vec![AffiliationFields::default()],
            organisation: false,
        }
    }
}

/// One affiliation's row: the organisation's name and its ROR, in any spelling.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AffiliationFields {
    pub name: String,
    pub ror: String,
}

impl CreatorFields {
    /// Whether the name is an organisation's: written without a comma, and not a person's
    /// written without one (which the hint under the name offers to write as one).
    fn is_organisation(&self) -> bool {
        let name = self.name.trim();
        let creator = Creator {
            orcid: Some(self.orcid.clone()),
            ..Creator::named(name)
        };
        if name.contains(',') {
            return self.organisation;
        }
        !name.is_empty() && as_person(&creator).is_none()
    }
}

/// A ROR as the form shows it: the id alone (02en5vm52), which fits in a short box; any
/// spelling typed keys as the same address.
fn ror_shown(ror: Option<&str>) -> String {
    ror.map(|ror| match ror_address(ror) {
        Ok(address) => ror_id(&address).to_string(),
        Err(_) => ror.to_string(),
    })
    .unwrap_or_default()
}

impl AffiliationFields {
    fn from_affiliation(a: &Affiliation) -> Self {
        AffiliationFields {
            name: a.name.clone(),
            ror: ror_shown(a.ror.as_deref()),
        }
    }

    fn to_affiliation(&self) -> Affiliation {
        Affiliation {
            name: self.name.trim().to_string(),
            ror: Some(self.ror.trim().to_string()).filter(|r| !r.is_empty()),
        }
    }
}

/// Who may read the files, as the form's choice (the embargo's date is a field of its own,
/// kept while another choice is tried).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AccessChoice {
    #[default]
    Open,
    Restricted,
    Embargoed,
}

impl AccessChoice {
    pub const ALL: [AccessChoice; 3] = [
        AccessChoice::Open,
        AccessChoice::Restricted,
        AccessChoice::Embargoed,
    ];

    pub fn label(self) -> &'static str {
        match self {
            AccessChoice::Open => "Open to anyone",
            AccessChoice::Restricted => "Restricted",
            AccessChoice::Embargoed => "Embargoed until",
        }
    }

    fn hover(self) -> &'static str {
        match self {
            AccessChoice::Open => "Anyone may download the files",
            AccessChoice::Restricted => {
                "Only you and those you grant access may download the files; \
                 the record's metadata is public"
            }
            AccessChoice::Embargoed => {
                "The files are restricted until the date, then open to anyone; \
                 the record's metadata is public at once"
            }
        }
    }
}

/// The form's text, built from stored metadata and turned back into metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetadataForm {
    pub title: String,
    pub creators: Vec<CreatorFields>,
    pub description: String,
    pub year: String,
    pub publisher: String,
    pub license: String,
    /// Comma-separated.
    pub keywords: String,
    pub resource_type: String,
    pub version: String,
    pub access: AccessChoice,
    /// `YYYY-MM-DD`, used when `access` is embargoed.
    pub embargo_until: String,
    /// One related work a line, as `--related` takes it: `IsSupplementTo 10.1234/abc`.
    pub related: String,
    /// One funder a line, as `--funding` takes it: `NSF; award=2045678; award-title=Cores`.
    pub funding: String,
    /// One contributor a line, as `--contributor` takes it: `Curie, Marie; role=Editor`.
    pub contributors: String,
    /// One date a line, as `--date` takes it: `Collected 2025-03-01/2025-06-30`.
    pub dates: String,
    /// One location a line, as `--location` takes it: `Lake Zurich; lat=47.27; lon=8.65`.
    pub locations: String,
    /// Communities' short names, comma separated, as keywords are.
    pub communities: String,
    /// How the data were collected or made, over several lines as the description.
    pub methods: String,
    /// The language of the content: a code or an English name (shown by its name).
    pub language: String,
}

impl MetadataForm {
    pub fn from_metadata(m: &Metadata) -> MetadataForm {
        MetadataForm {
            title: m.title.clone(),
            creators: m
                .creators
                .iter()
                .map(|c| {
                    let mut affiliations: Vec<AffiliationFields> = c
                        .affiliations
                        .iter()
                        .map(AffiliationFields::from_affiliation)
                        .collect();
                    if affiliations.is_empty() {
                        affiliations.push(AffiliationFields::default());
                    }
                    CreatorFields {
                        name: c.name.clone(),
                        orcid: c.orcid.clone().unwrap_or_default(),
                        ror: ror_shown(c.ror.as_deref()),
                        affiliations,
                        organisation: c.organisation,
                    }
                })
                .collect(),
            description: m.description.clone().unwrap_or_default(),
            year: m
                .publication_year
                .map(|y| y.to_string())
                .unwrap_or_default(),
            publisher: m.publisher.clone(),
            license: m.license.clone().unwrap_or_default(),
            keywords: m.keywords.join(", "),
            resource_type: m.resource_type.clone(),
            version: m.version.clone().unwrap_or_default(),
            access: match m.access {
                FileAccess::Open => AccessChoice::Open,
                FileAccess::Restricted => AccessChoice::Restricted,
                FileAccess::Embargoed { .. } => AccessChoice::Embargoed,
            },
            embargo_until: m.access.embargo_until().unwrap_or_default().to_string(),
            related: one_a_line(&m.related, RelatedWork::describe),
            funding: one_a_line(&m.funding, Funding::describe),
            contributors: one_a_line(&m.contributors, Contributor::describe),
            dates: one_a_line(&m.dates, DatasetDate::describe),
            locations: one_a_line(&m.locations, Location::describe),
            communities: m.communities.join(", "),
            methods: m.methods.clone().unwrap_or_default(),
            language: m
                .language
                .as_deref()
                .map(language_shown)
                .unwrap_or_default(),
        }
    }

    /// Carry this form's edits (what differs from `base`, the stored metadata it started
    /// from) over to `stored`, metadata saved elsewhere meanwhile (a terminal, CITATION.cff
    /// read again): a field not edited here takes the stored value, so saving the form does
    /// not undo what was saved there. Returns the fields edited both here and there, each
    /// differently: those keep what was typed here.
    pub fn rebase(&mut self, base: &MetadataForm, stored: &MetadataForm) -> Vec<&'static str> {
        fn field<T: PartialEq + Clone>(
            mine: &mut T,
            base: &T,
            theirs: &T,
            name: &'static str,
            both: &mut Vec<&'static str>,
        ) {
            if mine == base {
                *mine = theirs.clone();
            } else if theirs != base && mine != theirs {
                both.push(name);
            }
        }
        let mut both = Vec::new();
        let b = &mut both;
        field(&mut self.title, &base.title, &stored.title, "Title", b);
        field(
            &mut self.creators,
            &base.creators,
            &stored.creators,
            "Creators",
            b,
        );
        let description = (&base.description, &stored.description);
        field(
            &mut self.description,
            description.0,
            description.1,
            "Description",
            b,
        );
        field(
            &mut self.methods,
            &base.methods,
            &stored.methods,
            "Methods",
            b,
        );
        field(&mut self.year, &base.year, &stored.year, "Year", b);
        field(
            &mut self.publisher,
            &base.publisher,
            &stored.publisher,
            "Publisher",
            b,
        );
        field(
            &mut self.license,
            &base.license,
            &stored.license,
            "License",
            b,
        );
        field(
            &mut self.keywords,
            &base.keywords,
            &stored.keywords,
            "Keywords",
            b,
        );
        let kind = (&base.resource_type, &stored.resource_type);
        field(&mut self.resource_type, kind.0, kind.1, "Resource type", b);
        field(
            &mut self.version,
            &base.version,
            &stored.version,
            "Version",
            b,
        );
        field(
            &mut self.language,
            &base.language,
            &stored.language,
            "Language",
            b,
        );
        field(
            &mut self.access,
            &base.access,
            &stored.access,
            "File access",
            b,
        );
        let until = (&base.embargo_until, &stored.embargo_until);
        field(&mut self.embargo_until, until.0, until.1, "Embargo date", b);
        let related = (&base.related, &stored.related);
        field(&mut self.related, related.0, related.1, "Related works", b);
        let funding = (&base.funding, &stored.funding);
        field(&mut self.funding, funding.0, funding.1, "Funding", b);
        let contributors = (&base.contributors, &stored.contributors);
        field(
            &mut self.contributors,
            contributors.0,
            contributors.1,
            "Contributors",
            b,
        );
        field(&mut self.dates, &base.dates, &stored.dates, "Dates", b);
        let locations = (&base.locations, &stored.locations);
        field(
            &mut self.locations,
            locations.0,
            locations.1,
            "Locations",
            b,
        );
        let communities = (&base.communities, &stored.communities);
        field(
            &mut self.communities,
            communities.0,
            communities.1,
            "Communities",
            b,
        );
        both
    }

    /// Whether this form says the same metadata as `other`, as it would be stored: a blank
    /// creator row, or spaces around a value, are no edit. The year is compared as typed,
    /// since one that is not a year is no metadata at all.
    pub fn says_the_same_as(&self, other: &MetadataForm) -> bool {
        self == other
            || (self.year.trim() == other.year.trim()
                && self.to_metadata().0.normalized() == other.to_metadata().0.normalized())
    }

    /// Why the form cannot be saved as it is, if it cannot: a Year that is no number has no
    /// place in the metadata, so a save would drop it (and the year stored before with it).
    /// Every other problem is kept as typed, saved and marked.
    pub fn unsaveable(&self) -> Option<String> {
        let year = self.year.trim();
        (!year.is_empty() && year.parse::<i32>().is_err()).then(|| {
            format!(
                "'{year}' is not a year: write four digits in Year (e.g. 2026), or empty it, \
                 before saving"
            )
        })
    }

    /// The metadata the form says, and every problem with it.
    pub fn to_metadata(&self) -> (Metadata, Vec<FieldProblem>) {
        let opt = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let year = self.year.trim();
        let (publication_year, year_problem) = if year.is_empty() {
            (None, None)
        } else {
            match year.parse::<i32>() {
                Ok(y) => (Some(y), None),
                Err(_) => (
                    None,
                    Some(FieldProblem {
                        field: "publication_year".into(),
                        message: format!("'{year}' is not a year: write four digits, e.g. 2026"),
                    }),
                ),
            }
        };
        let metadata = Metadata {
            title: self.title.clone(),
            creators: self
                .creators
                .iter()
                .map(|c| Creator {
                    name: c.name.clone(),
                    orcid: opt(&c.orcid),
                    ror: opt(&c.ror),
                    // Empty rows left out, so that the problems' places (`affiliation_field`)
                    // count the rows that say something, as the keyed form does.
                    affiliations: c
                        .affiliations
                        .iter()
                        .map(AffiliationFields::to_affiliation)
                        .filter(|a| !a.is_blank())
                        .collect(),
                    organisation: c.organisation && c.name.contains(','),
                })
                .collect(),
            description: opt(&self.description),
            methods: opt(&self.methods),
            language: opt(&self.language),
            publication_year,
            publisher: self.publisher.clone(),
            license: opt(&self.license),
            keywords: self
                .keywords
                .split(',')
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect(),
            resource_type: self.resource_type.clone(),
            version: opt(&self.version),
            access: match self.access {
                AccessChoice::Open => FileAccess::Open,
                AccessChoice::Restricted => FileAccess::Restricted,
                AccessChoice::Embargoed => FileAccess::Embargoed {
                    until: self.embargo_until.trim().to_string(),
                },
            },
            // A line that cannot be read is kept as typed, whole, so that it is named as a
            // problem rather than dropped.
            related: each_line(&self.related, RelatedWork::parse, |line| RelatedWork {
                relation: line.to_string(),
                identifier: String::new(),
            }),
            funding: each_line(&self.funding, Funding::parse, |line| Funding {
                funder: line.to_string(),
                ..Funding::default()
            }),
            contributors: each_line(&self.contributors, Contributor::parse, |line| Contributor {
                name: line.to_string(),
                ..Contributor::default()
            }),
            dates: each_line(&self.dates, DatasetDate::parse, |line| DatasetDate {
                date_type: line.to_string(),
                date: String::new(),
            }),
            locations: each_line(&self.locations, Location::parse, |line| Location {
                place: line.to_string(),
                ..Location::default()
            }),
            communities: self
                .communities
                .split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect(),
        };
        let mut problems = metadata.problems();
        if let Some(p) = year_problem {
            problems.retain(|q| q.field != "publication_year");
            problems.push(p);
        }
        (metadata, problems)
    }
}

/// `items` as a one-a-line field shows them, each `describe`d.
fn one_a_line<T>(items: &[T], describe: impl Fn(&T) -> String) -> String {
    items.iter().map(describe).collect::<Vec<_>>().join("\n")
}

/// Each line of a one-a-line field that is not blank, read by `parse`, or by `whole` when
/// `parse` cannot read it.
fn each_line<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
    whole: impl Fn(&str) -> T,
) -> Vec<T> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| parse(line).unwrap_or_else(|_| whole(line)))
        .collect()
}

fn error_text(ui: &mut egui::Ui, problems: &[FieldProblem], field: &str) {
    for p in problems.iter().filter(|p| p.field == field) {
        problem_line(ui, p);
    }
}

/// About how wide a small button with one symbol (`✖`, `+`) is, in points.
const SMALL_BUTTON: f32 = 30.0;
/// About how wide the "ROR" label is, in points.
const ROR_LABEL: f32 = 32.0;
/// The width an affiliation's ROR box gets: its id (`02en5vm52`) and a little more.
const ROR_BOX: f32 = 110.0;

/// The rows of creator `i`'s affiliations, each its name and its ROR with their problems
/// beneath; the last row's `+` adds one, and each after the first can be removed. True
/// when anything changed.
fn affiliation_rows(
    ui: &mut egui::Ui,
    problems: &[FieldProblem],
    i: usize,
    rows: &mut Vec<AffiliationFields>,
) -> bool {
    let mut changed = false;
    let mut remove = None;
    let mut add = false;
    // The rows that say something are the ones the metadata holds: a problem's place counts
    // those only.
    let mut said = 0;
    let last = rows.len().saturating_sub(1);
    for (k, row) in rows.iter_mut().enumerate() {
        let place = said;
        if !row.to_affiliation().is_blank() {
            said += 1;
        }
        ui.horizontal(|ui| {
            let l = ui.label("Affiliation");
            // The two boxes share what the row leaves beside the ROR label and room for two
            // small buttons (remove, add), alike on every row so that the boxes line up and
            // the buttons never widen the panel.
            let gap = ui.spacing().item_spacing.x;
            let boxes = ui.available_width() - 2.0 * (SMALL_BUTTON + gap) - (ROR_LABEL + 2.0 * gap);
            // A ROR id is nine characters; the organisation's name takes the rest, so that a
            // long one ("Sorbonne Université") shows whole where the panel has room.
            let name_width = (boxes - ROR_BOX).max(60.0);
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut row.name)
                        .id_salt(("creator affiliation", i, k))
                        .desired_width(name_width),
                )
                .labelled_by(l.id)
                .changed();
            let l = ui.label("ROR");
            let room = ui.available_width() - 2.0 * (SMALL_BUTTON + gap);
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut row.ror)
                        .id_salt(("creator affiliation ror", i, k))
                        .hint_text("e.g. 02en5vm52")
                        .desired_width(room.max(60.0)),
                )
                .labelled_by(l.id)
                .on_hover_text(
                    "The affiliation's id in the Research Organization Registry \
                     (ror.org), so repositories link the dataset to the organisation",
                )
                .changed();
            if k > 0
                && ui
                    .small_button("✖")
                    .on_hover_text("Remove this affiliation")
                    .clicked()
            {
                remove = Some(k);
            }
            if k == last
                && ui
                    .small_button("+")
                    .on_hover_text("Add another organisation this creator belongs to")
                    .clicked()
            {
                add = true;
            }
        });
        let person = format!("creators[{i}]");
        error_text(ui, problems, &affiliation_field(&person, place, false));
        error_text(ui, problems, &affiliation_field(&person, place, true));
    }
    if let Some(k) = remove {
        rows.remove(k);
        changed = true;
    }
    if add {
        rows.push(AffiliationFields::default());
        changed = true;
    }
    changed
}

/// One problem, in red, without the command-line flag that fixes it, and with the name of
/// its field where the message goes on from it ("Publisher is required: …", not "is
/// required: …").
fn problem_line(ui: &mut egui::Ui, p: &FieldProblem) {
    ui.label(
        RichText::new(format!("⚠ {}", problem_text(p))).color(Color32::from_rgb(0xd6, 0x3c, 0x3c)),
    );
}

/// What [`problem_line`] says of `p`.
fn problem_text(p: &FieldProblem) -> String {
    let message = p.message_without_flag();
    let goes_on = ["is ", "has ", "must ", "are "]
        .iter()
        .any(|verb| message.starts_with(verb));
    if !goes_on {
        return capitalised(message);
    }
    format!("{} {message}", field_label(&p.field))
}

/// `text` with its first letter a capital; one that begins with an address
/// (`https://ror.org/...`) or an identifier in quotes is left as it is.
fn capitalised(text: &str) -> String {
    if text.starts_with("http://") || text.starts_with("https://") || text.starts_with('\'') {
        return text.to_string();
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The form's label of a problem's field (`creators[0].orcid` is the ORCID iD box).
fn field_label(field: &str) -> String {
    let last = field.rsplit('.').next().unwrap_or(field);
    let last = last.split('[').next().unwrap_or(last);
    match last {
        "publication_year" => "Year".into(),
        "orcid" => "ORCID iD".into(),
        "ror" | "affiliation_ror" => "ROR".into(),
        "resource_type" => "Resource type".into(),
        "until" => "Embargo end".into(),
        "" => "This field".into(),
        other => capitalised(&other.replace('_', " ")),
    }
}

/// Under a creator's name: one that looks like a person's written without the comma is
/// allowed, but repositories take it as an organisation's; a button writes it as
/// "Family, Given". True when pressed.
fn person_hint(ui: &mut egui::Ui, c: &mut CreatorFields) -> bool {
    let creator = Creator {
        name: c.name.clone(),
        orcid: Some(c.orcid.clone()),
        ror: Some(c.ror.clone()),
        affiliations: Vec::new(),
        organisation: false,
    };
    let Some(meant) = as_person(&creator) else {
        return false;
    };
    let mut changed = false;
    ui.label(RichText::new("No comma: repositories take this as an organisation's name.").weak());
    // On a line of its own, cut short (not broken mid-word) where a name is longer than
    // the panel is wide; the whole of it on hover.
    let use_it = egui::Button::new(format!("Use {meant}"))
        .small()
        .wrap_mode(egui::TextWrapMode::Truncate);
    if ui
        .add(use_it)
        .on_hover_text(format!("A person is written \"Family, Given\": {meant}"))
        .clicked()
    {
        c.name = meant;
        changed = true;
    }
    changed
}

/// Under the license: a license that is not an SPDX identifier is allowed, but goes to
/// repositories as text only; where one is close, a button puts it in. True when pressed.
/// The button goes once pressed, so the keyboard's focus is given back to the license's
/// field (`field`, when known): Tab then goes on to the next one, not to the window's top.
pub(super) fn license_hint(
    ui: &mut egui::Ui,
    license: &mut String,
    field: Option<egui::Id>,
) -> bool {
    if license.trim().is_empty() || spdx_license_id(license).is_some() {
        return false;
    }
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Not an SPDX identifier: repositories get it as text only.").weak());
        if let Some(id) = spdx_suggestion(license)
            && ui
                .small_button(format!("Use {id}"))
                .on_hover_text("Replace the license with this SPDX identifier")
                .clicked()
        {
            *license = id.to_string();
            changed = true;
            if let Some(field) = field {
                ui.memory_mut(|m| m.request_focus(field));
            }
        }
    });
    changed
}

fn text_field(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut String,
    hint: &str,
    lines: Lines,
) -> bool {
    let l = ui.label(RichText::new(label).strong());
    let edit = match lines {
        Lines::One => egui::TextEdit::singleline(value),
        // A multi-line field grows with what is typed in it.
        Lines::Several { shown } => egui::TextEdit::multiline(value).desired_rows(shown),
    };
    // A stable id, not one counted from the widgets above: a problem line that comes or goes
    // above a field while it is typed in would otherwise move its id, and its focus with it.
    let edit = edit.id(field_id(ui, label));
    ui.add(edit.hint_text(hint).desired_width(f32::INFINITY))
        .labelled_by(l.id)
        .changed()
}

/// The id of the field [`text_field`] shows under `label` in `ui`: for giving it the
/// keyboard's focus.
fn field_id(ui: &egui::Ui, label: &str) -> egui::Id {
    ui.make_persistent_id(("metadata field", label))
}

/// A field of one item a line, `text` under `label`, growing with what is typed in it; under
/// it, the problems of its items (`field[0]`, `field[1]`, ...) among `problems`.
fn lines_field(
    ui: &mut egui::Ui,
    label: &str,
    text: &mut String,
    hint: &str,
    field: &str,
    problems: &[FieldProblem],
) -> bool {
    let changed = text_field(ui, label, text, hint, Lines::Several { shown: 1 });
    let item = format!("{field}[");
    for p in problems.iter().filter(|p| p.field.starts_with(&item)) {
        problem_line(ui, p);
    }
    changed
}

/// A text field's lines: one, or several (Enter starts a new one), `shown` at first.
#[derive(Clone, Copy)]
enum Lines {
    One,
    Several { shown: usize },
}

/// Draw the form; returns whether anything changed.
pub fn show(ui: &mut egui::Ui, form: &mut MetadataForm, problems: &[FieldProblem]) -> bool {
    let mut changed = false;
    changed |= text_field(
        ui,
        "Title",
        &mut form.title,
        "What the dataset is",
        Lines::One,
    );
    error_text(ui, problems, "title");

    ui.label(RichText::new("Creators").strong());
    error_text(ui, problems, "creators");
    let mut remove = None;
    // A creator just added gets the keyboard, so the name can be typed at once.
    let new_creator = ui.make_persistent_id("metadata form: new creator");
    let focus_new: Option<usize> = ui.data_mut(|d| d.remove_temp(new_creator));
    for (i, c) in form.creators.iter_mut().enumerate() {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            // As wide as the panel, as every other field is: the rows below are narrower.
            ui.set_min_width(ui.available_width());
            ui.horizontal(|ui| {
                let l = ui.label("Name");
                let name = ui
                    .add(
                        egui::TextEdit::singleline(&mut c.name)
                            .id_salt(("creator name", i))
                            .hint_text("Family, Given")
                            // The row's width but the remove button's: a long name
                            // ("University of California, Berkeley") shows whole.
                            .desired_width(
                                (ui.available_width() - SMALL_BUTTON - ui.spacing().item_spacing.x)
                                    .max(120.0),
                            ),
                    )
                    .labelled_by(l.id);
                if focus_new == Some(i) {
                    name.request_focus();
                }
                changed |= name.changed();
                if ui
                    .small_button("✖")
                    .on_hover_text("Remove this creator")
                    .clicked()
                {
                    remove = Some(i);
                }
            });
            error_text(ui, problems, &format!("creators[{i}].name"));
            changed |= person_hint(ui, c);
            // A comma makes a name a person's "Family, Given", unless this says it is an
            // organisation's ("University of California, Berkeley"): offered under a name
            // with an organisation's word in it, or ticked already, not under every person.
            if c.name.contains(',')
                && (c.organisation || crate::content::has_organisation_word(&c.name))
            {
                changed |= ui
                    .checkbox(
                        &mut c.organisation,
                        "An organisation (the comma is part of its name)",
                    )
                    .on_hover_text(
                        "Ticked, repositories are sent this name whole, as an \
                         organisation's; unticked, as a person's family and given names",
                    )
                    .changed();
            }
            // A person is identified by an ORCID iD, an organisation by its ROR: the row
            // offers the one the name is (and keeps showing one already typed).
            let organisation = c.is_organisation();
            // Wrapped: with both an ORCID and a ROR ID typed the row is wider than the
            // panel at its narrowest.
            ui.horizontal_wrapped(|ui| {
                if !organisation || !c.orcid.trim().is_empty() {
                    let l = ui.label("ORCID");
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut c.orcid)
                                .id_salt(("creator orcid", i))
                                .hint_text("0000-0000-0000-0000")
                                .desired_width(150.0),
                        )
                        .labelled_by(l.id)
                        .changed();
                }
                if organisation || !c.ror.trim().is_empty() {
                    let l = ui.label("ROR ID");
                    changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut c.ror)
                                .id_salt(("creator ror", i))
                                .hint_text("e.g. 01ggx4157")
                                .desired_width(110.0),
                        )
                        .labelled_by(l.id)
                        .on_hover_text(
                            "The organisation's own id in the Research Organization Registry \
                             (ror.org), so repositories link the dataset to it",
                        )
                        .changed();
                }
            });
            error_text(ui, problems, &format!("creators[{i}].orcid"));
            error_text(ui, problems, &format!("creators[{i}].ror"));
            changed |= affiliation_rows(ui, problems, i, &mut c.affiliations);
        });
    }
    if let Some(i) = remove {
        form.creators.remove(i);
        changed = true;
    }
    if ui.small_button("+ Add creator").clicked() {
        form.creators.push(CreatorFields::default());
        let index = form.creators.len() - 1;
        ui.data_mut(|d| d.insert_temp(new_creator, index));
        changed = true;
    }

    let description = Lines::Several { shown: 3 };
    changed |= text_field(
        ui,
        "Description",
        &mut form.description,
        "Optional",
        description,
    );
    changed |= text_field(
        ui,
        "Methods",
        &mut form.methods,
        "Optional: how the data were collected or made (instruments, sampling, processing)",
        Lines::Several { shown: 2 },
    );
    ui.horizontal(|ui| {
        ui.vertical(|ui| {
            ui.set_width(110.0);
            changed |= text_field(ui, "Year", &mut form.year, "e.g. 2026", Lines::One);
        });
        ui.vertical(|ui| {
            changed |= text_field(
                ui,
                "Publisher",
                &mut form.publisher,
                "Institution or repository",
                Lines::One,
            );
        });
    });
    error_text(ui, problems, "publication_year");
    error_text(ui, problems, "publisher");
    changed |= text_field(
        ui,
        "License",
        &mut form.license,
        "SPDX id, e.g. CC-BY-4.0",
        Lines::One,
    );
    let license_field = field_id(ui, "License");
    changed |= license_hint(ui, &mut form.license, Some(license_field));
    error_text(ui, problems, "license");
    changed |= text_field(
        ui,
        "Keywords",
        &mut form.keywords,
        "comma, separated",
        Lines::One,
    );
    for p in problems.iter().filter(|p| p.field.starts_with("keywords[")) {
        problem_line(ui, p);
    }
    ui.horizontal(|ui| {
        let l = ui.label(RichText::new("Resource type").strong());
        egui::ComboBox::from_id_salt("resource_type")
            .selected_text(&form.resource_type)
            .show_ui(ui, |ui| {
                for t in RESOURCE_TYPES {
                    changed |=
                        super::pick(ui, &mut form.resource_type, t.to_string(), *t).changed();
                }
            })
            .response
            .labelled_by(l.id);
    });
    error_text(ui, problems, "resource_type");
    changed |= text_field(
        ui,
        "Version",
        &mut form.version,
        "Optional, e.g. 1.0",
        Lines::One,
    );
    error_text(ui, problems, "version");
    changed |= text_field(
        ui,
        "Language",
        &mut form.language,
        "Optional, of the content: e.g. en or English",
        Lines::One,
    );
    error_text(ui, problems, "language");
    changed |= access_field(ui, form);
    error_text(ui, problems, "access.until");
    changed |= lines_field(
        ui,
        "Dates",
        &mut form.dates,
        "Optional, one a line: Collected 2025-03-01/2025-06-30 (when the data were collected)",
        "dates",
        problems,
    );
    changed |= lines_field(
        ui,
        "Locations",
        &mut form.locations,
        "Optional, one a line: Lake Zurich; lat=47.27; lon=8.65 (or box=WEST,SOUTH,EAST,NORTH)",
        "locations",
        problems,
    );
    changed |= text_field(
        ui,
        "Communities",
        &mut form.communities,
        "Optional, comma separated: soil-science (Zenodo asks its curators to include the record)",
        Lines::One,
    );
    for p in problems
        .iter()
        .filter(|p| p.field.starts_with("communities"))
    {
        problem_line(ui, p);
    }
    changed |= lines_field(
        ui,
        "Related works",
        &mut form.related,
        "Optional, one a line: IsSupplementTo 10.1234/abc (the paper this dataset supplements)",
        "related",
        problems,
    );
    changed |= lines_field(
        ui,
        "Funding",
        &mut form.funding,
        "Optional, one funder a line: NSF; award=2045678; award-title=Soil cores",
        "funding",
        problems,
    );
    changed |= lines_field(
        ui,
        "Contributors",
        &mut form.contributors,
        "Optional, one a line: Curie, Marie; role=ContactPerson (or DataCollector, \
         DataCurator, ...)",
        "contributors",
        problems,
    );
    changed
}

/// Who may read the files: a choice, and the embargo's end date beside it when embargoed.
fn access_field(ui: &mut egui::Ui, form: &mut MetadataForm) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let l = ui.label(RichText::new("File access").strong());
        egui::ComboBox::from_id_salt("file access")
            .selected_text(form.access.label())
            .show_ui(ui, |ui| {
                for choice in AccessChoice::ALL {
                    changed |= super::pick(ui, &mut form.access, choice, choice.label())
                        .on_hover_text(choice.hover())
                        .changed();
                }
            })
            .response
            .labelled_by(l.id)
            .on_hover_text(form.access.hover());
        if form.access == AccessChoice::Embargoed {
            let l = ui.label("Date");
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut form.embargo_until)
                        .id_salt("embargo until")
                        .hint_text("YYYY-MM-DD")
                        .desired_width(110.0),
                )
                .labelled_by(l.id)
                .changed();
        }
    });
    if form.access == AccessChoice::Embargoed
        && let Some(said) = embargo_come(form.embargo_until.trim(), &crate::content::today())
    {
        ui.add(egui::Label::new(RichText::new(said).color(ui.visuals().warn_fg_color)).wrap());
    }
    changed
}

/// What to say of an embargo whose end (`until`, a calendar day) has come by `today`: the
/// files would be open at once, and Zenodo and InvenioRDM refuse it (as `lodge add` says).
fn embargo_come(until: &str, today: &str) -> Option<String> {
    (crate::content::is_calendar_date(until) && until <= today).then(|| {
        format!(
            "⚠ The embargo ends on {until}, which has come: the files would be open at once, \
             and Zenodo and InvenioRDM refuse such an embargo. Give a later day, or choose \
             Open to anyone."
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::content::FieldProblem;

    /// A problem shown under its field names the field where its words go on from it.
    #[test]
    fn a_problem_under_its_field_names_the_field() {
        let said = |field: &str, message: &str| {
            super::problem_text(&FieldProblem {
                field: field.into(),
                message: message.into(),
            })
        };
        // An address at its start is not capitalised ("Https://").
        assert_eq!(
            said(
                "creators[0].ror",
                "https://ror.org/02en5vm52 names an organisation"
            ),
            "https://ror.org/02en5vm52 names an organisation"
        );
        assert_eq!(
            said(
                "publisher",
                "is required: name the publishing institution (--publisher)"
            ),
            "Publisher is required: name the publishing institution"
        );
        assert_eq!(
            said(
                "creators[0].orcid",
                "'0000-0002-1825-0098' is not a valid ORCID iD: expected 0000-0000-0000-000X"
            ),
            "'0000-0002-1825-0098' is not a valid ORCID iD: expected 0000-0000-0000-000X"
        );
        assert_eq!(
            said(
                "publication_year",
                "must be a four-digit year, not 99 (--year)"
            ),
            "Year must be a four-digit year, not 99"
        );
        assert_eq!(
            said(
                "creators",
                "at least one creator is required (--creator \"Family, Given\")"
            ),
            "At least one creator is required"
        );
    }
}
