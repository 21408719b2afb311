//! Prefilling a dataset's metadata from citation files already in its folder:
//! `CITATION.cff` (Citation File Format, YAML) or, failing that, `.zenodo.json` (Zenodo
//! deposit metadata).
//!
//! The result is a starting point, not validated: the caller shows it, lets the person fix
//! it, and checks it with [`Metadata::problems`]. Both files stay part of the dataset.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use serde_yaml_ng::Value as Yaml;

use super::cff_as_written::CffAsWritten;
use super::{
    Affiliation, ContentError, Contributor, Creator, DatasetDate, FileAccess, Funding, Location,
    Metadata, RelatedWork,
};

/// File name of Citation File Format metadata.
pub const CITATION_CFF: &str = "CITATION.cff";
/// File name of Zenodo deposit metadata.
pub const ZENODO_JSON: &str = ".zenodo.json";

/// Metadata from `CITATION.cff` in `root`, else from `.zenodo.json`, with the path of the
/// file used; `None` when neither exists. A file that exists but cannot be read or parsed is
/// [`ContentError::BadCitation`].
pub fn metadata_from_folder(root: &Path) -> Result<Option<(Metadata, PathBuf)>, ContentError> {
    let cff = root.join(CITATION_CFF);
    let zenodo = root.join(ZENODO_JSON);
    if let Some(text) = read_if_exists(&cff)? {
        let mut metadata =
            parse_citation_cff(&text).map_err(|message| ContentError::BadCitation {
                path: cff.clone(),
                message,
            })?;
        // A `CITATION.cff` says nothing of who may read the files. A `.zenodo.json` beside
        // it that keeps them restricted or under embargo is obeyed, so that its files are
        // never published openly because the other file was read.
        if let Some(text) = read_if_exists(&zenodo)? {
            metadata.access = match access_of_zenodo_json(&text) {
                Ok(access) => access,
                // It speaks of access in a way Lodge cannot read: the files are kept from
                // the public ([`zenodo_json_beside_note`] says so), and the citation file's
                // metadata is still read.
                Err(_) if speaks_of_access(&text) => FileAccess::Restricted,
                Err(message) => {
                    return Err(ContentError::BadCitation {
                        path: zenodo.clone(),
                        message,
                    });
                }
            };
        }
        return Ok(Some((metadata, cff)));
    }
    if let Some(text) = read_if_exists(&zenodo)? {
        let metadata = parse_zenodo_json(&text).map_err(|message| ContentError::BadCitation {
            path: zenodo.clone(),
            message,
        })?;
        return Ok(Some((metadata, zenodo)));
    }
    Ok(None)
}

/// Who may read the files, when a `.zenodo.json` in `root` keeps them restricted or under
/// embargo: for a folder whose citation files could not be read otherwise (a `CITATION.cff`
/// with a bad date, a `.zenodo.json` with a bad creator), so that its files are not
/// published openly because the rest of a file was not read.
pub fn access_kept_by_folder(root: &Path) -> Option<KeptAccess> {
    let text = read_if_exists(&root.join(ZENODO_JSON)).ok()??;
    match access_of_zenodo_json(&text) {
        Ok(access) => (!access.is_open()).then_some(KeptAccess {
            access,
            unread: None,
        }),
        // A file that speaks of access and cannot be read on it ("Private", a closed
        // record with an embargo date): its files are kept from the public, the strictest
        // it may mean, until the person says otherwise. Open is never guessed.
        Err(problem) if speaks_of_access(&text) => Some(KeptAccess {
            access: FileAccess::Restricted,
            unread: Some(problem),
        }),
        Err(_) => None,
    }
}

/// Who may read the files, as kept from a folder's `.zenodo.json` by
/// [`access_kept_by_folder`].
#[derive(Debug, Clone, PartialEq)]
pub struct KeptAccess {
    pub access: FileAccess,
    /// Why the file's access could not be read, when `access` is the restriction kept for
    /// want of it.
    pub unread: Option<String>,
}

impl KeptAccess {
    /// What a person is told of it: who may read the files and why, naming `file`.
    pub fn said_of(&self, file: &Path) -> String {
        match &self.unread {
            None => format!(
                "files {}, as {} says",
                self.access.describe(),
                file.display()
            ),
            Some(problem) => format!(
                "files {}: {} says who may read them, and that could not be read ({problem}); \
                 they are kept from the public until you say otherwise (--access open, \
                 embargoed with --embargo-until, or restricted; or the details' File access)",
                self.access.describe(),
                file.display()
            ),
        }
    }
}

/// Whether a `.zenodo.json`'s text gives who may read the files at all (`access_right` or
/// `embargo_date`), read or not.
fn speaks_of_access(text: &str) -> bool {
    text.contains("\"access_right\"") || text.contains("\"embargo_date\"")
}

fn read_if_exists(path: &Path) -> Result<Option<String>, ContentError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ContentError::BadCitation {
                path: path.to_path_buf(),
                message: "the file is not UTF-8 text".into(),
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ContentError::Unreadable {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A number as the file writes it after `key` (`"version"` in a `.zenodo.json`), where
/// parsing would lose its form (1.10 is 1.1 to a parser). `None` unless exactly one place in
/// `text` gives `key` a plain number.
fn number_as_written(text: &str, key: &str) -> Option<String> {
    let keys = text.match_indices(key);
    let mut found = keys.filter_map(|(at, _)| {
        let rest = text[at + key.len()..].trim_start_matches([' ', '\t']);
        let rest = rest.strip_prefix(':').unwrap_or(rest).trim_start();
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            .collect();
        (!number.is_empty() && number.starts_with(|c: char| c.is_ascii_digit())).then_some(number)
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Year of a `YYYY-MM-DD` (or `YYYY`) date. One that is no day of the calendar
/// (2024-13-45) is a problem of the file, as text that is no date is: its year is not taken
/// on trust.
fn year_of(field: &str, date: &str) -> Result<i32, String> {
    let trimmed = date.trim();
    let year_only = trimmed.len() == 4 && trimmed.bytes().all(|b| b.is_ascii_digit());
    let year = trimmed.get(..4).and_then(|y| y.parse().ok());
    match year {
        Some(year) if year_only || super::is_calendar_date(trimmed) => Ok(year),
        Some(_) => Err(format!(
            "{field} '{date}' is not a calendar date: write it like 2024-05-31"
        )),
        None => Err(format!("{field} '{date}' is not a date like 2024-05-31")),
    }
}

// ---- CITATION.cff ------------------------------------------------------------------------

/// The text of field `field` (value `v`): a plain `True` or `1.10`, which YAML reads as a
/// boolean or a number, as the file writes it where [`CffAsWritten`] read it.
fn yaml_text(written: &CffAsWritten, field: &str, v: &Yaml) -> Result<String, String> {
    match v {
        Yaml::String(s) => Ok(s.clone()),
        Yaml::Number(_) | Yaml::Bool(_) if let Some(text) = written.get(field) => {
            Ok(text.to_string())
        }
        Yaml::Number(n) => Ok(n.to_string()),
        Yaml::Bool(b) => Ok(b.to_string()),
        _ => Err(format!("{field} must be text")),
    }
}

fn yaml_opt_text(
    written: &CffAsWritten,
    map: &Yaml,
    key: &str,
    field: &str,
) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Yaml::Null) => Ok(None),
        Some(v) => yaml_text(written, field, v).map(Some),
    }
}

/// Metadata from the text of a `CITATION.cff` file. The error names the field (or the YAML
/// position) that could not be read; the caller adds the file's path.
pub fn parse_citation_cff(text: &str) -> Result<Metadata, String> {
    // Windows editors (Notepad) begin UTF-8 files with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Yaml = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
    if !doc.is_mapping() {
        return Err(
            "expected a YAML mapping of CFF keys (cff-version, title, authors, ...)".into(),
        );
    }
    let w = &CffAsWritten::read(text);
    // Every problem of the file at once, not one per run: the person fixes them together.
    let mut problems = Vec::new();
    let mut m = Metadata {
        title: kept(&mut problems, yaml_opt_text(w, &doc, "title", "title"))
            .flatten()
            .unwrap_or_default(),
        description: kept(
            &mut problems,
            yaml_opt_text(w, &doc, "abstract", "abstract"),
        )
        .flatten(),
        // (`version: 1.10` is a number to YAML, 1.1 once read: it is kept as written.)
        version: kept(&mut problems, yaml_opt_text(w, &doc, "version", "version")).flatten(),
        ..Metadata::default()
    };
    if let Some(authors) = doc.get("authors") {
        match authors.as_sequence() {
            None => problems.push("authors must be a list of persons or entities".into()),
            Some(list) => {
                for (i, a) in list.iter().enumerate() {
                    m.creators.extend(kept(&mut problems, cff_author(w, i, a)));
                }
            }
        }
    }
    if let Some(date) = doc.get("date-released").filter(|v| !v.is_null())
        && let Some(date) = kept(&mut problems, yaml_text(w, "date-released", date))
    {
        m.publication_year = kept(&mut problems, year_of("date-released", &date));
    }
    m.license = match doc.get("license") {
        None | Some(Yaml::Null) => None,
        // CFF allows a list of SPDX ids; they mean "any of", written as an SPDX expression.
        Some(Yaml::Sequence(ids)) => {
            let ids = ids
                .iter()
                .map(|v| yaml_text(w, "license", v))
                .collect::<Result<Vec<_>, _>>();
            kept(&mut problems, ids)
                .map(|ids| ids.join(" OR "))
                .filter(|s| !s.is_empty())
        }
        Some(v) => kept(&mut problems, yaml_text(w, "license", v)),
    };
    if let Some(keywords) = doc.get("keywords").filter(|v| !v.is_null()) {
        match keywords.as_sequence() {
            None => problems.push("keywords must be a list".into()),
            Some(list) => {
                for (i, k) in list.iter().enumerate() {
                    let keyword = yaml_text(w, &format!("keywords[{i}]"), k);
                    m.keywords.extend(kept(&mut problems, keyword));
                }
            }
        }
    }
    if let Some(publisher) = doc.get("publisher").filter(|v| !v.is_null()) {
        let named = match publisher {
            Yaml::Mapping(_) => yaml_opt_text(w, publisher, "name", "publisher.name"),
            other => yaml_text(w, "publisher", other).map(Some),
        };
        m.publisher = kept(&mut problems, named).flatten().unwrap_or_default();
    }
    if let Some(references) = doc.get("references").filter(|v| !v.is_null()) {
        match references.as_sequence() {
            None => problems.push("references must be a list of works".into()),
            Some(list) => {
                for (i, r) in list.iter().enumerate() {
                    let found = cff_reference_identifier(w, i, r).map(|id| {
                        id.map(|identifier| RelatedWork {
                            relation: "References".into(),
                            identifier,
                        })
                    });
                    m.related.extend(kept(&mut problems, found).flatten());
                }
            }
        }
    }
    if let Some(kind) = kept(&mut problems, yaml_opt_text(w, &doc, "type", "type")).flatten() {
        // CFF's two types, in whatever case a file writes them.
        m.resource_type = match kind.trim().to_lowercase().as_str() {
            "software" => "Software",
            _ => "Dataset",
        }
        .into();
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    Ok(m)
}

/// The value of `read`, or `None` with its problem noted in `problems`.
fn kept<T>(problems: &mut Vec<String>, read: Result<T, String>) -> Option<T> {
    read.map_err(|problem| problems.push(problem)).ok()
}

/// The DOI (its `doi`, else an `identifiers` entry of type `doi`) or else the URL of a
/// `CITATION.cff` reference, the work the dataset references; `None` for a reference with
/// neither, which cannot be sent as a related work (named by [`fields_not_carried`]).
fn cff_reference_identifier(
    w: &CffAsWritten,
    i: usize,
    r: &Yaml,
) -> Result<Option<String>, String> {
    if !r.is_mapping() {
        return Err(format!(
            "references[{i}] must be a mapping (type, title, authors, doi, ...)"
        ));
    }
    let field = |key: &str| yaml_opt_text(w, r, key, &format!("references[{i}].{key}"));
    if let Some(doi) = field("doi")?.filter(|d| !d.trim().is_empty()) {
        return Ok(Some(doi));
    }
    let identifiers = r.get("identifiers").and_then(Yaml::as_sequence);
    for id in identifiers.into_iter().flatten() {
        if id.get("type").and_then(Yaml::as_str) == Some("doi")
            && let Some(doi) = id.get("value").and_then(Yaml::as_str)
            && !doi.trim().is_empty()
        {
            return Ok(Some(doi.to_string()));
        }
    }
    Ok(field("url")?.filter(|u| !u.trim().is_empty()))
}

fn cff_author(w: &CffAsWritten, i: usize, a: &Yaml) -> Result<Creator, String> {
    if !a.is_mapping() {
        return Err(format!(
            "authors[{i}] must be a mapping (family-names, given-names, ...)"
        ));
    }
    let field = |key: &str| yaml_opt_text(w, a, key, &format!("authors[{i}].{key}"));
    let family_names = field("family-names")?;
    // CFF keeps the particle apart ("van" + "Beethoven"), but files often carry it in the
    // family names as well ("van der Berg" + "van der"): said once, not twice.
    let particle = field("name-particle")?.filter(|p| {
        let (p, f) = (p.trim(), family_names.as_deref().unwrap_or("").trim());
        !f.strip_prefix(p).is_some_and(|rest| rest.starts_with(' '))
    });
    let family = [particle, family_names, field("name-suffix")?]
        .into_iter()
        .flatten()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let given = field("given-names")?.unwrap_or_default();
    let (name, entity) = match (family.is_empty(), given.trim().is_empty()) {
        (false, false) => (format!("{family}, {}", given.trim()), false),
        (false, true) => (family, false),
        (true, false) => (given.trim().to_string(), false),
        // An entity (organisation, team) has a `name`; persons may use an alias.
        (true, true) => match field("name")? {
            Some(name) => (name, true),
            None => (field("alias")?.unwrap_or_default(), false),
        },
    };
    Ok(Creator {
        // An entity's name with a comma ("University of California, Berkeley") is still an
        // organisation's, not a person's "Family, Given".
        organisation: entity && name.contains(','),
        name,
        orcid: field("orcid")?,
        // CITATION.cff 1.2 has no ROR for an entity, and one affiliation, a name without
        // its ROR.
        ror: None,
        affiliations: field("affiliation")?
            .map(Affiliation::named)
            .into_iter()
            .collect(),
    })
}

// ---- .zenodo.json ------------------------------------------------------------------------

fn json_opt_text(obj: &Json, key: &str, field: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(Json::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(format!("{field} must be a string")),
    }
}

/// A creator or contributor of a `.zenodo.json` (`{name, orcid, affiliation}`), named
/// `field` (`creators[0]`) in what cannot be read.
fn zenodo_person(person: &Json, field: &str) -> Result<Creator, String> {
    let text = |key: &str| json_opt_text(person, key, &format!("{field}.{key}"));
    Ok(Creator {
        name: text("name")?.unwrap_or_default(),
        // Zenodo's legacy creators are persons or organisations by the comma alone.
        organisation: false,
        orcid: text("orcid")?,
        // Zenodo's legacy deposit fields have no ROR for a creator, and one affiliation, a
        // name without its ROR.
        ror: None,
        affiliations: text("affiliation")?
            .map(Affiliation::named)
            .into_iter()
            .collect(),
    })
}

/// The ids of a `.zenodo.json`'s `grants` (`[{"id": "777541"}]`), as written.
fn zenodo_grant_ids(doc: &Json) -> Result<Vec<String>, String> {
    let grants = ("{id}", "an object with an id");
    let mut ids = Vec::new();
    for (i, g) in objects_of(doc, "grants", grants)? {
        let field = format!("grants[{i}].id");
        ids.push(json_opt_text(g, "id", &field)?.ok_or(format!("{field} is missing"))?);
    }
    Ok(ids)
}

/// Zenodo `upload_type` -> DataCite `resourceTypeGeneral`, in whatever case a file writes
/// it (Zenodo's own are lower case: "Dataset" is still a dataset).
fn resource_type_of_upload(upload_type: &str) -> &'static str {
    match upload_type.trim().to_lowercase().as_str() {
        "dataset" => "Dataset",
        "workflow" => "Workflow",
        "model" => "Model",
        "software" => "Software",
        "image" => "Image",
        "video" => "Audiovisual",
        "physicalobject" => "PhysicalObject",
        "lesson" => "InteractiveResource",
        "publication" | "poster" | "presentation" => "Text",
        _ => "Other",
    }
}

/// Metadata from the text of a `.zenodo.json` file. The error names the field (or the JSON
/// position) that could not be read; the caller adds the file's path.
/// Who may read the files, as a `.zenodo.json` says (`access_right`, `embargo_date`).
fn access_of_zenodo_json(text: &str) -> Result<FileAccess, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Json = serde_json::from_str(text).map_err(|e| {
        format!("{e}; it is read for who may read the files (access_right, embargo_date)")
    })?;
    let doc = zenodo_fields(&doc);
    if !doc.is_object() {
        return Err("expected a JSON object of Zenodo deposit fields (access_right, ...)".into());
    }
    zenodo_access(doc)
}

pub fn parse_zenodo_json(text: &str) -> Result<Metadata, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let doc = zenodo_fields(&doc);
    if !doc.is_object() {
        return Err(
            "expected a JSON object of Zenodo deposit fields (title, creators, ...)".into(),
        );
    }
    let mut m = Metadata {
        title: json_opt_text(doc, "title", "title")?.unwrap_or_default(),
        description: json_opt_text(doc, "description", "description")?,
        version: match doc.get("version") {
            // `"version": 1.10` is a number, 1.1 once read: keep it as written.
            Some(Json::Number(_)) => number_as_written(text, "\"version\""),
            _ => None,
        }
        .map_or_else(|| json_opt_text(doc, "version", "version"), |v| Ok(Some(v)))?,
        publisher: json_opt_text(doc, "publisher", "publisher")?.unwrap_or_default(),
        ..Metadata::default()
    };
    let creators = ("{name, orcid, affiliation}", "an object with a name");
    for (i, c) in objects_of(doc, "creators", creators)? {
        m.creators
            .push(zenodo_person(c, &format!("creators[{i}]"))?);
    }
    let contributors = (
        "{name, type, orcid, affiliation}",
        "an object with a name and a type",
    );
    for (i, c) in objects_of(doc, "contributors", contributors)? {
        let field = format!("contributors[{i}]");
        // Zenodo's `type` is DataCite's contributor type; one missing or unknown is a
        // problem of the metadata, named with the others.
        let role = json_opt_text(c, "type", &format!("{field}.type"))?;
        let person = zenodo_person(c, &field)?;
        m.contributors
            .push(Contributor::in_role(person, role.unwrap_or_default()));
    }
    let dates = (
        "{start, end, type}",
        "an object with a type and a start or end",
    );
    for (i, d) in objects_of(doc, "dates", dates)? {
        let field = |key: &str| json_opt_text(d, key, &format!("dates[{i}].{key}"));
        // Zenodo gives a range as its start and end (either may be left out); a date
        // Lodge cannot send is a problem of the metadata, named with the others.
        let date = match (field("start")?, field("end")?) {
            (Some(start), Some(end)) if start != end => format!("{start}/{end}"),
            (Some(day), _) | (None, Some(day)) => day,
            (None, None) => String::new(),
        };
        m.dates.push(DatasetDate {
            date_type: field("type")?.unwrap_or_default(),
            date,
        });
    }
    let locations = (
        "{place, lat, lon}",
        "an object with a place, and a lat and lon",
    );
    for (i, l) in objects_of(doc, "locations", locations)? {
        let field = |key: &str| json_opt_text(l, key, &format!("locations[{i}].{key}"));
        // A point out of range, or half of one, is a problem of the metadata, named
        // with the others.
        m.locations.push(Location {
            place: field("place")?.unwrap_or_default(),
            latitude: field("lat")?,
            longitude: field("lon")?,
            bbox: None,
        });
    }
    if let Some(communities) = doc.get("communities").filter(|v| !v.is_null()) {
        let list = communities
            .as_array()
            .ok_or("communities must be a list of {identifier}")?;
        for (i, c) in list.iter().enumerate() {
            // A name Lodge cannot send is a problem of the metadata, named with the others.
            let name = match c {
                Json::String(name) => Some(name.clone()),
                Json::Object(_) => {
                    json_opt_text(c, "identifier", &format!("communities[{i}].identifier"))?
                }
                _ => None,
            };
            let name = name.ok_or_else(|| {
                format!("communities[{i}] must be {{\"identifier\": \"soil-science\"}}")
            })?;
            m.communities.push(name);
        }
    }
    // Zenodo's grants, each whose funder Lodge knows by name as funding; the others are
    // named by `fields_not_carried`.
    for id in zenodo_grant_ids(doc)? {
        m.funding.extend(Funding::of_zenodo_grant(&id));
    }
    // Zenodo's `method`: the methodology of the study, DataCite's Methods description.
    m.methods = json_opt_text(doc, "method", "method")?;
    // An ISO 639-2 or 639-3 code in Zenodo's deposit fields; kept as written, keyed as a
    // code, and named as a problem when it is no language.
    m.language = json_opt_text(doc, "language", "language")?;
    if let Some(date) = json_opt_text(doc, "publication_date", "publication_date")? {
        m.publication_year = Some(year_of("publication_date", &date)?);
    }
    m.license = match doc.get("license") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(obj @ Json::Object(_)) => json_opt_text(obj, "id", "license.id")?,
        Some(_) => return Err("license must be a string or {\"id\": ...}".into()),
    };
    if let Some(keywords) = doc.get("keywords").filter(|v| !v.is_null()) {
        let list = keywords.as_array().ok_or("keywords must be a list")?;
        for (i, k) in list.iter().enumerate() {
            let k = k
                .as_str()
                .ok_or_else(|| format!("keywords[{i}] must be a string"))?;
            m.keywords.push(k.to_string());
        }
    }
    if let Some(kind) = json_opt_text(doc, "upload_type", "upload_type")? {
        m.resource_type = resource_type_of_upload(&kind).into();
    }
    m.access = zenodo_access(doc)?;
    if let Some(related) = doc.get("related_identifiers").filter(|v| !v.is_null()) {
        let list = related
            .as_array()
            .ok_or("related_identifiers must be a list")?;
        for (i, r) in list.iter().enumerate() {
            let field = |name: &str| {
                r.get(name)
                    .and_then(Json::as_str)
                    .ok_or_else(|| format!("related_identifiers[{i}] must have a text \"{name}\""))
            };
            // Zenodo writes the relation as `isSupplementTo`; a relation or identifier
            // Lodge cannot send is a problem of the metadata, named with the others.
            m.related.push(RelatedWork {
                relation: field("relation")?.to_string(),
                identifier: field("identifier")?.to_string(),
            });
        }
    }
    Ok(m)
}

/// The objects of the list `doc[key]` with their places in it (none when it is absent or
/// null); `form` says what the list holds and what each must be, for the error when it is
/// not a list or an item is not an object.
fn objects_of<'a>(
    doc: &'a Json,
    key: &str,
    (list_of, each): (&str, &str),
) -> Result<Vec<(usize, &'a Json)>, String> {
    let Some(given) = doc.get(key).filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let list = given
        .as_array()
        .ok_or_else(|| format!("{key} must be a list of {list_of}"))?;
    let mut objects = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        if !item.is_object() {
            return Err(format!("{key}[{i}] must be {each}"));
        }
        objects.push((i, item));
    }
    Ok(objects)
}

/// Zenodo's `access_right` (and `embargo_date`) as who may read the files. Zenodo's
/// `closed` (files kept from everyone) is restricted here, as Zenodo itself has read it
/// since it moved to InvenioRDM: only the owner and those granted access get the files.
fn zenodo_access(doc: &Json) -> Result<FileAccess, String> {
    let right = json_opt_text(doc, "access_right", "access_right")?;
    let until = json_opt_text(doc, "embargo_date", "embargo_date")?;
    // Zenodo writes them in lower case; "Closed" means what "closed" does.
    let right = right.map(|r| r.trim().to_ascii_lowercase());
    match right.as_deref() {
        None | Some("open") if until.is_none() => Ok(FileAccess::Open),
        Some("restricted" | "closed") if until.is_none() => Ok(FileAccess::Restricted),
        Some("embargoed") => match until {
            Some(until) => Ok(FileAccess::Embargoed { until }),
            None => Err(
                "access_right is embargoed but embargo_date is not given: add \
                 \"embargo_date\": \"YYYY-MM-DD\", the day the files open"
                    .into(),
            ),
        },
        None | Some("open" | "restricted" | "closed") => Err(format!(
            "embargo_date is given but access_right is {}: write \"access_right\": \
             \"embargoed\" for an embargo, or remove embargo_date",
            right.as_deref().unwrap_or("not given")
        )),
        Some(other) => Err(format!(
            "access_right '{other}' is not one of open, embargoed, restricted, closed"
        )),
    }
}

/// What a citation file gives that Lodge does not carry to a deposit: its top-level
/// fields other than those read into [`Metadata`] (and the file format's own bookkeeping),
/// to name when the file prefills a dataset, so that nobody counts on a community, a grant
/// or a related paper reaching the repository. Empty when the file cannot be read: reading
/// it for the metadata says why.
pub fn fields_not_carried(citation_file: &Path) -> Vec<String> {
    let Some((doc, read)) = citation_fields(citation_file) else {
        return Vec::new();
    };
    // A DOI is said of its own, by [`dois_cited`].
    let mut fields: Vec<String> = doc
        .keys()
        .filter(|k| !read.contains(&k.as_str()) && *k != "doi")
        .cloned()
        .collect();
    // A `CITATION.cff`'s references without a DOI or URL are named one by one, by
    // [`references_not_sent`].
    // A `.zenodo.json`'s grants are read as funding where Lodge knows the funder by name.
    if read == ZENODO_READ {
        let ids = zenodo_grant_ids(&Json::Object(doc.clone())).unwrap_or_default();
        let unsent: Vec<String> = ids
            .into_iter()
            .filter(|id| Funding::of_zenodo_grant(id).is_none())
            .collect();
        if !unsent.is_empty() {
            fields.push(format!("{UNSENT_GRANTS} ({})", unsent.join(", ")));
        }
    }
    fields
}

/// The day a citation file says the work was released (`date-released`, a `.zenodo.json`'s
/// `publication_date`), when it gives one: only its year is sent, as the publication year.
/// Said, with the flag that sends the day too.
pub fn release_day_note(citation_file: &Path) -> Option<String> {
    let (doc, read) = citation_fields(citation_file)?;
    let field = if read == CFF_READ {
        "date-released"
    } else {
        "publication_date"
    };
    let day = doc.get(field)?.as_str()?.trim();
    super::is_calendar_date(day).then(|| {
        format!(
            "{} gives the day of release, {field} {day}: Lodge sends its year, as the \
             publication year; to send the day too, give it as a date: --date \"Issued {day}\"",
            citation_file.display()
        )
    })
}

/// The references of a `CITATION.cff` that are not sent: those with neither a DOI nor a
/// URL (the rest are read as related works `References`), each as its place in the list
/// and its title, when it has one. Empty for a `.zenodo.json`, and for a file that cannot
/// be read (reading it for the metadata says why).
pub fn references_not_sent(citation_file: &Path) -> Vec<(usize, Option<String>)> {
    let Some((doc, read)) = citation_fields(citation_file) else {
        return Vec::new();
    };
    if read != CFF_READ {
        return Vec::new();
    }
    let named = |id: &Json| id.as_str().is_some_and(|s| !s.trim().is_empty());
    let references = doc.get("references").and_then(Json::as_array);
    references
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, r)| {
            let by_identifier = r["identifiers"].as_array().is_some_and(|ids| {
                ids.iter()
                    .any(|id| id["type"] == "doi" && named(&id["value"]))
            });
            !(named(&r["doi"]) || by_identifier || named(&r["url"]))
        })
        .map(|(i, r)| {
            let title = r["title"].as_str().map(str::trim).filter(|t| !t.is_empty());
            (i, title.map(str::to_string))
        })
        .collect()
}

/// What to say of each reference of a `CITATION.cff` that is not sent
/// ([`references_not_sent`]): which, why, and how it is given instead (`give_instead`:
/// the command line's flag, the window's field).
pub fn unsent_reference_notes(citation_file: &Path, give_instead: &str) -> Vec<String> {
    references_not_sent(citation_file)
        .into_iter()
        .map(|(i, title)| {
            format!(
                "references[{i}]{} of {} has no doi or url, so it is not sent as a related work: \
                 give the work's DOI or address {give_instead}",
                title.map(|t| format!(" ('{t}')")).unwrap_or_default(),
                citation_file.display()
            )
        })
        .collect()
}

/// What to say of a citation file when it prefills a dataset, beside what it gives that
/// Lodge does not send ([`fields_not_carried`]): [`zenodo_json_beside_note`] and
/// [`organisation_author_notes`]. Each says what to do about it; none when the file cannot
/// be read (reading it for the metadata says why). `give_instead` says where what only the
/// unread file says is given instead: the command line's flags, the window's fields.
pub fn citation_notes(citation_file: &Path, give_instead: &str) -> Vec<String> {
    let mut notes: Vec<String> = zenodo_json_beside_note(citation_file, give_instead)
        .into_iter()
        .collect();
    notes.extend(organisation_author_notes(citation_file));
    notes
}

/// A `.zenodo.json` beside the `CITATION.cff` that was read instead: read only for who may
/// read the files, the rest of it to be given `give_instead`.
pub fn zenodo_json_beside_note(citation_file: &Path, give_instead: &str) -> Option<String> {
    let zenodo = citation_file.parent()?.join(ZENODO_JSON);
    (citation_file.file_name().is_some_and(|n| n == CITATION_CFF) && zenodo.is_file()).then(
        || {
            // Its access could not be read: the files were kept restricted for want of it.
            let kept = access_kept_by_folder(citation_file.parent()?)
                .filter(|kept| kept.unread.is_some())
                .map(|kept| format!("; {}", kept.said_of(&zenodo)))
                .unwrap_or_default();
            Some(format!(
                "{} was read only for who may read the files (access_right, embargo_date): \
                 with both files in a folder, Lodge reads {CITATION_CFF}; give what else only \
                 {ZENODO_JSON} says {give_instead}{kept}",
                zenodo.display()
            ))
        },
    )?
}

/// Each `CITATION.cff` author with only `given-names`, which is sent as an organisation of
/// that name: said where the file's authors become the dataset's creators.
pub fn organisation_author_notes(citation_file: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let Some((doc, read)) = citation_fields(citation_file) else {
        return notes;
    };
    if read != CFF_READ {
        return notes;
    }
    let authors = doc.get("authors").and_then(Json::as_array);
    for (i, author) in authors.into_iter().flatten().enumerate() {
        let text = |key: &str| {
            author
                .get(key)
                .and_then(Json::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        // Half of a person's name: the name it has, which half that is, and the other.
        let half = match (text("given-names"), text("family-names")) {
            (Some(given), None)
                if text("name-particle").is_none() && text("name-suffix").is_none() =>
            {
                Some((given, "given-names", "family-names"))
            }
            (None, Some(family)) => Some((family, "family-names", "given-names")),
            _ => None,
        };
        if let Some((name, has, lacks)) = half {
            notes.push(format!(
                "authors[{i}] of {} has {has} '{name}' and no {lacks}, so it is sent as an \
                 organisation named '{name}': add its {lacks} for a person, or write \
                 `name: {name}` for an organisation",
                citation_file.display()
            ));
        }
    }
    notes
}

/// How [`fields_not_carried`] begins its entry for a `.zenodo.json`'s grants that could not
/// be read as funding (their ids follow), so that those who name it can say how to give
/// them.
pub const UNSENT_GRANTS: &str = "grants whose funder Lodge cannot name";

/// The DOIs a citation file gives for what it describes (`doi`, and in `CITATION.cff`
/// the `identifiers` of type `doi`). One that is the dataset's own means it was deposited
/// before, by hand or by another tool: a deposit through Lodge would then make a second
/// record with a second DOI, so the person is told before depositing.
pub fn dois_cited(citation_file: &Path) -> Vec<String> {
    let Some((doc, _)) = citation_fields(citation_file) else {
        return Vec::new();
    };
    let mut dois: Vec<String> = doc
        .get("doi")
        .and_then(Json::as_str)
        .map(str::to_string)
        .into_iter()
        .collect();
    for id in doc
        .get("identifiers")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        if id["type"].as_str() == Some("doi")
            && let Some(doi) = id["value"].as_str()
            && !dois.iter().any(|d| d == doi)
        {
            dois.push(doi.to_string());
        }
    }
    dois.retain(|d| !d.trim().is_empty());
    dois
}

/// The top-level fields of the citation file (`.zenodo.json`'s inside its `metadata`
/// wrapper, if it has one) and the ones [`Metadata`] reads; `None` if it cannot be read.
fn citation_fields(
    citation_file: &Path,
) -> Option<(serde_json::Map<String, Json>, &'static [&'static str])> {
    let text = fs::read_to_string(citation_file).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if citation_file.file_name().is_some_and(|n| n == CITATION_CFF) {
        let doc: Yaml = serde_yaml_ng::from_str(text).ok()?;
        // YAML's keys that are not text (a number, say) name no CFF field.
        let fields = doc
            .as_mapping()?
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), serde_json::to_value(v).ok()?)));
        return Some((fields.collect(), CFF_READ));
    }
    let doc: Json = serde_json::from_str(text).ok()?;
    Some((zenodo_fields(&doc).as_object()?.clone(), ZENODO_READ))
}

/// A `.zenodo.json`'s fields: a file saved from the deposit API may wrap them in
/// `{"metadata": {...}}`.
fn zenodo_fields(doc: &Json) -> &Json {
    match doc.get("metadata") {
        Some(inner) if inner.is_object() && doc.get("title").is_none() => inner,
        _ => doc,
    }
}

/// `CITATION.cff` keys read into the metadata, or that only describe the file itself.
const CFF_READ: &[&str] = &[
    "cff-version",
    "message",
    "title",
    "abstract",
    "version",
    "authors",
    "date-released",
    "license",
    "keywords",
    "publisher",
    "type",
    "references",
];

/// `.zenodo.json` keys read into the metadata.
const ZENODO_READ: &[&str] = &[
    "title",
    "description",
    "version",
    "publisher",
    "creators",
    "publication_date",
    "license",
    "keywords",
    "upload_type",
    "access_right",
    "embargo_date",
    "related_identifiers",
    "contributors",
    "dates",
    "locations",
    "communities",
    "method",
    "language",
    "grants",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zenodo_related_identifiers_become_related_works_and_a_bad_one_is_a_metadata_problem() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "related_identifiers": [
                {"identifier": "https://doi.org/10.1234/Paper", "relation": "isSupplementTo", "scheme": "doi"},
                {"identifier": "https://example.org/code", "relation": "isDerivedFrom"},
                {"identifier": "arXiv:2101.00001", "relation": "cites"}
            ]}"#,
        )
        .unwrap();
        let said: Vec<String> = m
            .normalized()
            .related
            .iter()
            .map(|r| r.describe())
            .collect();
        assert_eq!(
            said,
            [
                "IsSupplementTo 10.1234/paper",
                "IsDerivedFrom https://example.org/code",
                "Cites arXiv:2101.00001"
            ]
        );
        let problems: Vec<String> = m.problems().into_iter().map(|p| p.to_string()).collect();
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("related[2]: 'arXiv:2101.00001' is neither a DOI")),
            "{problems:?}"
        );
        let err =
            parse_zenodo_json(r#"{"title": "T", "related_identifiers": [{"relation": "cites"}]}"#)
                .unwrap_err();
        assert!(
            err.to_string()
                .contains("related_identifiers[0] must have a text \"identifier\""),
            "{err}"
        );
    }

    #[test]
    fn zenodo_locations_become_locations_a_point_out_of_range_a_metadata_problem() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "locations": [
                {"place": "Lake Zurich", "lat": 47.270, "lon": 8.65},
                {"place": "Disko Bay", "description": "the fjord's mouth"},
                {"place": "Nowhere", "lat": "95", "lon": "0"}
            ]}"#,
        )
        .unwrap();
        let said: Vec<String> = m
            .normalized()
            .locations
            .iter()
            .map(|l| l.describe())
            .collect();
        assert_eq!(
            said,
            [
                "Lake Zurich; lat=47.27; lon=8.65",
                "Disko Bay",
                "Nowhere; lat=95; lon=0"
            ]
        );
        let problems = m.problems();
        let located: Vec<_> = problems
            .iter()
            .filter(|p| p.field.starts_with("locations"))
            .collect();
        assert_eq!(located.len(), 1, "{problems:?}");
        assert_eq!(located[0].field, "locations[2]");
        assert!(
            located[0]
                .message
                .contains("latitude 95 is outside -90 to 90")
        );
        let err =
            parse_zenodo_json(r#"{"title": "T", "locations": {"place": "Zurich"}}"#).unwrap_err();
        assert!(
            err.to_string().contains("locations must be a list"),
            "{err}"
        );
    }

    #[test]
    fn cff_references_become_related_works_by_their_doi_or_url() {
        let m = parse_citation_cff(
            "title: T\nreferences:\n\
             - type: article\n  title: The paper\n  doi: 10.1234/PAPER\n\
             - type: software\n  title: The tool\n  identifiers:\n    - type: url\n      value: https://x.org\n    - type: doi\n      value: 10.5281/zenodo.7\n\
             - type: website\n  title: The site\n  url: https://example.org/survey\n\
             - type: book\n  title: A book with no identifier\n",
        )
        .unwrap();
        let said: Vec<String> = m
            .normalized()
            .related
            .iter()
            .map(|r| r.describe())
            .collect();
        assert_eq!(
            said,
            [
                "References 10.1234/paper",
                "References 10.5281/zenodo.7",
                "References https://example.org/survey",
            ]
        );
        let err = parse_citation_cff("title: T\nreferences: 10.1234/paper\n").unwrap_err();
        assert!(err.contains("references must be a list"), "{err}");
        let err = parse_citation_cff("title: T\nreferences:\n  - 10.1234/paper\n").unwrap_err();
        assert!(err.contains("references[0] must be a mapping"), "{err}");
    }

    #[test]
    fn zenodo_communities_become_communities_by_identifier_or_name() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "communities": [{"identifier": "soil-science"}, "Lake-Sediments"]}"#,
        )
        .unwrap();
        assert_eq!(
            m.normalized().communities,
            ["soil-science", "lake-sediments"]
        );
        let err = parse_zenodo_json(r#"{"title": "T", "communities": [7]}"#).unwrap_err();
        assert!(err.to_string().contains("communities[0] must be"), "{err}");
        let err = parse_zenodo_json(r#"{"title": "T", "communities": "soil"}"#).unwrap_err();
        assert!(
            err.to_string().contains("communities must be a list"),
            "{err}"
        );
    }

    #[test]
    fn zenodo_dates_become_dates_a_start_and_end_a_range() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "dates": [
                {"start": "2025-03-01", "end": "2025-06-30", "type": "Collected"},
                {"end": "2030", "type": "Valid", "description": "until the next survey"},
                {"start": "2025-01-01", "end": "2025-01-01", "type": "created"}
            ]}"#,
        )
        .unwrap();
        let said: Vec<String> = m.normalized().dates.iter().map(|d| d.describe()).collect();
        assert_eq!(
            said,
            [
                "Collected 2025-03-01/2025-06-30",
                "Valid 2030",
                "Created 2025-01-01"
            ]
        );
        assert!(m.problems().iter().all(|p| !p.field.starts_with("dates")));
        let err = parse_zenodo_json(r#"{"title": "T", "dates": "2025"}"#).unwrap_err();
        assert!(err.to_string().contains("dates must be a list"), "{err}");
    }

    #[test]
    fn zenodo_contributors_become_contributors_and_an_unknown_type_is_a_metadata_problem() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "contributors": [
                {"name": "Curie, Marie", "type": "ContactPerson", "orcid": "0000-0002-1825-0097"},
                {"name": "Soil Lab", "type": "HostingInstitution", "affiliation": "Uni"},
                {"name": "Doe, Jane", "type": "Colector"}
            ]}"#,
        )
        .unwrap();
        let said: Vec<String> = m
            .normalized()
            .contributors
            .iter()
            .map(|c| c.describe())
            .collect();
        assert_eq!(
            said,
            [
                "Curie, Marie; role=ContactPerson; orcid=0000-0002-1825-0097",
                "Soil Lab; role=HostingInstitution; affiliation=Uni",
                "Doe, Jane; role=Colector",
            ]
        );
        let problems: Vec<String> = m.problems().into_iter().map(|p| p.to_string()).collect();
        assert!(
            problems
                .iter()
                .any(|p| p
                    .starts_with("contributors[2]: 'Colector' is not a DataCite contributor type")),
            "{problems:?}"
        );
        let err = parse_zenodo_json(r#"{"title": "T", "contributors": ["Curie"]}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("contributors[0] must be an object with a name and a type"),
            "{err}"
        );
    }

    #[test]
    fn every_problem_of_a_citation_file_is_said_at_once() {
        let cff = "title: T\ndate-released: someday\nkeywords: soil\nlicense: [1, [2]]\n";
        let said = parse_citation_cff(cff).unwrap_err();
        for problem in [
            "date-released 'someday' is not a date",
            "keywords must be a list",
            "license must be text",
        ] {
            assert!(said.contains(problem), "{said}");
        }
    }

    #[test]
    fn a_byte_order_mark_and_a_version_like_1_10_are_read_as_written() {
        let cff = "\u{feff}cff-version: 1.2.0\ntitle: T\nversion: 1.10\nauthors:\n  - family-names: Doe\n    given-names: Jane\n";
        let m = parse_citation_cff(cff).unwrap();
        assert_eq!(
            (m.title.as_str(), m.version.as_deref()),
            ("T", Some("1.10"))
        );
        let json = "\u{feff}{\"title\": \"T\", \"version\": 1.10}";
        let m = parse_zenodo_json(json).unwrap();
        assert_eq!(
            (m.title.as_str(), m.version.as_deref()),
            ("T", Some("1.10"))
        );
        // Text stays text; a plain number reads as before.
        let m = parse_citation_cff("title: T\nversion: \"2.0\"\n").unwrap();
        assert_eq!(m.version.as_deref(), Some("2.0"));
        let m = parse_zenodo_json("{\"title\": \"T\", \"version\": 3}").unwrap();
        assert_eq!(m.version.as_deref(), Some("3"));
    }

    #[test]
    fn cff_words_yaml_reads_as_booleans_or_numbers_are_prefilled_as_written() {
        let m = parse_citation_cff(
            "title: True\nversion: 01.10\nkeywords: [Yes, 1.50]\nauthors:\n  - \
             family-names: Off\n    given-names: 'Ann'\n",
        )
        .unwrap();
        assert_eq!(m.title, "True");
        assert_eq!(m.version.as_deref(), Some("01.10"));
        assert_eq!(m.keywords, ["Yes", "1.50"]);
        assert_eq!(m.creators[0].name, "Off, Ann");
        // A field of another shape is still its problem; the rest reads as the parser does.
        let said = parse_citation_cff("title: True\nkeywords: {a: b}\n").unwrap_err();
        assert!(said.contains("keywords must be a list"), "{said}");
    }

    #[test]
    fn cff_person_with_particle_is_family_comma_given() {
        let m = parse_citation_cff(
            "cff-version: 1.2.0\ntitle: T\nauthors:\n  - family-names: Beethoven\n    \
             name-particle: van\n    given-names: Ludwig\n",
        )
        .unwrap();
        assert_eq!(m.creators[0].name, "van Beethoven, Ludwig");
    }

    #[test]
    fn cff_particle_written_in_the_family_names_too_is_said_once() {
        let m = parse_citation_cff(
            "title: T\nauthors:\n  - family-names: van der Berg\n    \
             name-particle: van der\n    given-names: Jan\n  - family-names: Vanderbilt\n    \
             name-particle: van\n    given-names: Cornelius\n",
        )
        .unwrap();
        assert_eq!(m.creators[0].name, "van der Berg, Jan");
        // A family name that only begins with the particle's letters keeps it.
        assert_eq!(m.creators[1].name, "van Vanderbilt, Cornelius");
    }

    #[test]
    fn cff_license_list_becomes_an_spdx_or_expression() {
        let m = parse_citation_cff("title: T\nlicense: [MIT, Apache-2.0]\n").unwrap();
        assert_eq!(m.license.as_deref(), Some("MIT OR Apache-2.0"));
    }

    #[test]
    fn cff_numeric_version_is_kept_as_text() {
        let m = parse_citation_cff("title: T\nversion: 2\n").unwrap();
        assert_eq!(m.version.as_deref(), Some("2"));
    }

    /// Zenodo's upload types and CFF's types in any case, and Zenodo's workflow and model,
    /// become the DataCite types they are, not "Other" (or a dataset for software).
    #[test]
    fn resource_types_are_read_whatever_their_case() {
        let zenodo = |kind: &str| {
            let text = format!(r#"{{"title": "T", "upload_type": "{kind}"}}"#);
            parse_zenodo_json(&text).unwrap().resource_type
        };
        assert_eq!(zenodo("Dataset"), "Dataset");
        assert_eq!(zenodo(" SOFTWARE "), "Software");
        assert_eq!(zenodo("workflow"), "Workflow");
        assert_eq!(zenodo("model"), "Model");
        assert_eq!(zenodo("poster"), "Text");
        assert_eq!(zenodo("something"), "Other");
        let cff = |kind: &str| {
            parse_citation_cff(&format!("title: T\ntype: {kind}\n"))
                .unwrap()
                .resource_type
        };
        assert_eq!(cff("Software"), "Software");
        assert_eq!(cff("dataset"), "Dataset");
    }

    #[test]
    fn zenodo_wrapped_in_metadata_is_unwrapped() {
        let m =
            parse_zenodo_json(r#"{"metadata": {"title": "T", "upload_type": "video"}}"#).unwrap();
        assert_eq!(m.title, "T");
        assert_eq!(m.resource_type, "Audiovisual");
    }

    #[test]
    fn bad_date_is_reported_with_its_field() {
        let err = parse_zenodo_json(r#"{"publication_date": "soon"}"#).unwrap_err();
        assert!(err.contains("publication_date"), "{err}");
    }

    /// Zenodo's access rights reach the dataset's metadata: a deposit never publishes
    /// openly what the file keeps restricted or under embargo.
    #[test]
    fn zenodo_access_rights_and_embargo_dates_are_read() {
        let access = |fields: &str| parse_zenodo_json(&format!("{{\"title\": \"T\"{fields}}}"));
        let embargoed = FileAccess::Embargoed {
            until: "2027-06-30".into(),
        };
        for (fields, expected) in [
            ("", FileAccess::Open),
            (r#", "access_right": "open""#, FileAccess::Open),
            (r#", "access_right": "restricted""#, FileAccess::Restricted),
            (r#", "access_right": "closed""#, FileAccess::Restricted),
            (r#", "access_right": " Closed""#, FileAccess::Restricted),
            (
                r#", "access_right": "embargoed", "embargo_date": "2027-06-30""#,
                embargoed,
            ),
        ] {
            assert_eq!(access(fields).unwrap().access, expected, "{fields}");
        }
        for (fields, said) in [
            (
                r#", "access_right": "embargoed""#,
                "embargo_date is not given",
            ),
            (
                r#", "embargo_date": "2027-06-30""#,
                "access_right is not given",
            ),
            (
                r#", "access_right": "private""#,
                "'private' is not one of open, embargoed, restricted, closed",
            ),
        ] {
            let err = access(fields).unwrap_err();
            assert!(err.contains(said), "{fields}: {err}");
        }
    }

    /// A `.zenodo.json` that speaks of access in a way Lodge cannot read keeps the files
    /// from the public (never open by default); one that says nothing of it keeps nothing.
    #[test]
    fn a_zenodo_json_whose_access_cannot_be_read_keeps_the_files_restricted() {
        let folder = tempfile::tempdir().unwrap();
        let kept = |json: &str| {
            fs::write(folder.path().join(ZENODO_JSON), json).unwrap();
            access_kept_by_folder(folder.path())
        };
        for unreadable in [
            r#"{"title": "T", "access_right": "closed", "embargo_date": "2020-01-01"}"#,
            r#"{"title": "T", "access_right": "private"}"#,
            r#"{"title": "T", "access_right": "embargoed"}"#,
            r#"{"title": "T", "access_right": ["closed"]}"#,
            r#"{"title": "T", "access_right": "closed", "#,
        ] {
            let kept = kept(unreadable).unwrap_or_else(|| panic!("open: {unreadable}"));
            assert_eq!(kept.access, FileAccess::Restricted, "{unreadable}");
            let said = kept.said_of(Path::new("/data/x/.zenodo.json"));
            assert!(
                said.starts_with("files restricted: /data/x/.zenodo.json says who may read")
                    && said.contains("until you say otherwise (--access open"),
                "{said}"
            );
        }
        let restricted = kept(r#"{"title": "T", "creators": "Doe", "access_right": "closed"}"#);
        assert_eq!(
            restricted,
            Some(KeptAccess {
                access: FileAccess::Restricted,
                unread: None
            })
        );
        assert_eq!(kept(r#"{"title": "T", "creators": "Doe"}"#), None);
        assert_eq!(kept(r#"{"title": "T", "access_right": "open"}"#), None);
    }

    /// Zenodo's grants: an EC grant by its number, another funder's by `FUNDER::NUMBER`,
    /// each as funding when Lodge knows the funder by name; a grants list that is not one
    /// is refused naming it.
    #[test]
    fn zenodo_grants_become_funding_where_the_funder_has_a_name() {
        let m = parse_zenodo_json(
            r#"{"title": "T", "grants": [{"id": "777541"},
                {"id": "10.13039/100000001::2045678"}, {"id": "10.13039/501100004963::1"}]}"#,
        )
        .unwrap();
        let said: Vec<String> = m.funding.iter().map(|f| f.describe()).collect();
        assert_eq!(
            said,
            [
                "European Commission; funder-id=https://doi.org/10.13039/501100000780; \
                 award=777541",
                "National Science Foundation; funder-id=https://doi.org/10.13039/100000001; \
                 award=2045678"
            ]
        );
        let err = parse_zenodo_json(r#"{"title": "T", "grants": ["777541"]}"#).unwrap_err();
        assert_eq!(err, "grants[0] must be an object with an id");
        let err = parse_zenodo_json(r#"{"title": "T", "grants": [{}]}"#).unwrap_err();
        assert_eq!(err, "grants[0].id is missing");
    }

    /// The day a citation file gives for the release is named, with the flag that sends
    /// it, since only its year is sent; a year alone, or no date, says nothing.
    #[test]
    fn a_day_of_release_is_named_with_the_flag_that_sends_it() {
        let dir = tempfile::tempdir().unwrap();
        let cff = dir.path().join(CITATION_CFF);
        let note = |text: &str| {
            fs::write(&cff, text).unwrap();
            release_day_note(&cff)
        };
        let said = note("title: T\ndate-released: 2024-03-15\n").unwrap();
        assert!(
            said.ends_with(
                "gives the day of release, date-released 2024-03-15: Lodge sends its year, as \
                 the publication year; to send the day too, give it as a date: --date \"Issued \
                 2024-03-15\""
            ),
            "{said}"
        );
        assert_eq!(note("title: T\ndate-released: '2024'\n"), None);
        assert_eq!(note("title: T\n"), None);
        let zenodo = dir.path().join(ZENODO_JSON);
        fs::remove_file(&cff).unwrap();
        fs::write(
            &zenodo,
            r#"{"title": "T", "publication_date": "2023-11-02"}"#,
        )
        .unwrap();
        let said = release_day_note(&zenodo).unwrap();
        assert!(said.contains("publication_date 2023-11-02"), "{said}");
    }

    #[test]
    fn fields_a_citation_file_gives_that_lodge_does_not_send_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let zenodo = dir.path().join(ZENODO_JSON);
        fs::write(
            &zenodo,
            r#"{"metadata": {"title": "T", "access_right": "open", "communities": [{"identifier": "ecfunded"}], "grants": [{"id": "777541"}, {"id": "10.13039/501100004963::12345"}, {"id": "H2020"}], "related_identifiers": [], "imprint_publisher": "Lab"}}"#,
        )
        .unwrap();
        // The EC grant is read as funding; the others cannot be.
        assert_eq!(
            fields_not_carried(&zenodo),
            [
                "imprint_publisher",
                "grants whose funder Lodge cannot name (10.13039/501100004963::12345, H2020)"
            ]
        );
        let cff = dir.path().join(CITATION_CFF);
        fs::write(
            &cff,
            "cff-version: 1.2.0\nmessage: Cite me\ntitle: T\nauthors: []\ndoi: 10.5281/zenodo.1\n\
             references:\n  - type: article\n    doi: 10.1234/paper\n",
        )
        .unwrap();
        assert!(
            fields_not_carried(&cff).is_empty(),
            "a reference with its DOI is sent"
        );
        let unidentified = "title: T\ndoi: 10.5281/zenodo.1\nreferences:\n  - type: article\n    \
                            url: https://x.org/a\n  - type: book\n    title: A book\n  - type: \
                            report\n";
        fs::write(&cff, unidentified).unwrap();
        assert!(fields_not_carried(&cff).is_empty(), "named one by one");
        assert_eq!(
            references_not_sent(&cff),
            [(1, Some("A book".to_string())), (2, None)]
        );
        assert_eq!(dois_cited(&cff), ["10.5281/zenodo.1"]);
        fs::write(&cff, "title: T\n").unwrap();
        assert!(fields_not_carried(&cff).is_empty());
        assert!(dois_cited(&cff).is_empty());
        fs::write(
            &cff,
            "title: T\nidentifiers:\n  - type: url\n    value: https://x.org\n  - type: doi\n    value: 10.1234/abc\n",
        )
        .unwrap();
        assert_eq!(dois_cited(&cff), ["10.1234/abc"]);
        assert_eq!(fields_not_carried(&cff), ["identifiers"]);
        fs::write(&zenodo, r#"{"title": "T", "doi": "10.5281/zenodo.7"}"#).unwrap();
        assert_eq!(dois_cited(&zenodo), ["10.5281/zenodo.7"]);
        assert!(fields_not_carried(&zenodo).is_empty());
    }
}
