//! Lodge metadata as DataCite Metadata Schema 4 attributes (the REST API's JSON form).
//!
//! The content key travels with the DOI as an alternate identifier of Lodge's own type, so
//! that "this DOI is already taken" can be told apart from "this DOI is ours already".

use serde_json::{Value, json};

use crate::content::{
    Affiliation, ContentDocument, ContentKey, Creator, FileAccess, Location, datacite_language,
    funder_identifier, spdx_license_id,
};

/// `alternateIdentifierType` of the content key in a DOI's metadata.
pub const KEY_IDENTIFIER_TYPE: &str = "Lodge content key";

/// What the user asked the DOI to become, in the order DataCite's events raise it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DoiState {
    /// No event: a draft, deletable, not resolvable.
    Draft,
    /// `register`: resolvable, not in the public index.
    Register,
    /// `publish`: findable. Needs a landing URL.
    Publish,
}

impl DoiState {
    pub fn parse(s: &str) -> Option<DoiState> {
        match s {
            "draft" => Some(DoiState::Draft),
            "register" | "registered" => Some(DoiState::Register),
            "publish" | "findable" => Some(DoiState::Publish),
            _ => None,
        }
    }

    /// What DataCite calls a DOI in this state.
    pub fn reported(self) -> &'static str {
        match self {
            DoiState::Draft => "draft",
            DoiState::Register => "registered",
            DoiState::Publish => "findable",
        }
    }

    pub fn event(self) -> Option<&'static str> {
        match self {
            DoiState::Draft => None,
            DoiState::Register => Some("register"),
            DoiState::Publish => Some("publish"),
        }
    }
}

fn creator(c: &Creator) -> Value {
    let mut out = json!({ "name": c.name });
    match c.person_names() {
        Some((family, given)) => {
            out["nameType"] = json!("Personal");
            out["familyName"] = json!(family);
            // One name alone ("Zhang,"): a family name and no given name, not an empty one.
            match given.is_empty() {
                true => out["name"] = json!(family),
                false => out["givenName"] = json!(given),
            }
        }
        None => out["nameType"] = json!("Organizational"),
    }
    let mut identifiers = Vec::new();
    if let Some(orcid) = &c.orcid {
        identifiers.push(json!({
            "nameIdentifier": format!("https://orcid.org/{orcid}"),
            "nameIdentifierScheme": "ORCID",
            "schemeUri": "https://orcid.org",
        }));
    }
    // An organisation's own ROR, keyed as its address.
    if let Some(ror) = &c.ror {
        identifiers.push(json!({
            "nameIdentifier": ror,
            "nameIdentifierScheme": "ROR",
            "schemeUri": "https://ror.org",
        }));
    }
    if !identifiers.is_empty() {
        out["nameIdentifiers"] = json!(identifiers);
    }
    if !c.affiliations.is_empty() {
        let affiliations: Vec<Value> = c.affiliations.iter().map(affiliation).collect();
        out["affiliation"] = json!(affiliations);
    }
    out
}

/// One of a creator's or contributor's affiliations, as DataCite lists them.
fn affiliation(a: &Affiliation) -> Value {
    let mut entry = json!({ "name": a.name });
    // Keyed as its address; metadata with a ROR that is not one is refused before it is
    // queued.
    if let Some(ror) = &a.ror {
        entry["affiliationIdentifier"] = json!(ror);
        entry["affiliationIdentifierScheme"] = json!("ROR");
        entry["schemeUri"] = json!("https://ror.org");
    }
    entry
}

/// The `attributes` of a `POST /dois` for `document` under `doi`; `earlier`, the DOI of
/// the dataset's earlier version, is related as the one it is a new version of.
pub fn attributes(
    doi: &str,
    key: &ContentKey,
    document: &ContentDocument,
    state: DoiState,
    url: Option<&str>,
    earlier: Option<&str>,
) -> Value {
    let m = &document.metadata;
    let mut a = json!({
        "doi": doi,
        "creators": m.creators.iter().map(creator).collect::<Vec<_>>(),
        "titles": [{ "title": m.title }],
        "publisher": m.publisher,
        "publicationYear": m.publication_year,
        "types": { "resourceTypeGeneral": m.resource_type },
        "alternateIdentifiers": [{
            "alternateIdentifier": key.to_hex(),
            "alternateIdentifierType": KEY_IDENTIFIER_TYPE,
        }],
        "sizes": [format!("{} bytes", document.total_size())],
        "schemaVersion": "http://datacite.org/schema/kernel-4",
    });
    if let Some(event) = state.event() {
        a["event"] = json!(event);
    }
    if let Some(url) = url {
        a["url"] = json!(url);
    }
    if let Some(language) = &m.language {
        a["language"] = json!(datacite_language(language));
    }
    let descriptions = [(&m.description, "Abstract"), (&m.methods, "Methods")];
    let given: Vec<Value> = descriptions
        .iter()
        .filter_map(|(text, kind)| {
            // DataCite shows descriptions as plain text: HTML (a .zenodo.json's) without
            // its tags.
            let text = crate::targets::description::as_plain_text(text.as_ref()?);
            Some(json!({ "description": text, "descriptionType": kind }))
        })
        .collect();
    if !given.is_empty() {
        a["descriptions"] = json!(given);
    }
    if !m.keywords.is_empty() {
        a["subjects"] = json!(
            m.keywords_once()
                .into_iter()
                .map(|k| json!({ "subject": k }))
                .collect::<Vec<_>>()
        );
    }
    if let Some(license) = &m.license {
        // An SPDX identifier as an identifier; anything else as the text it is, rather than
        // an identifier that names no license.
        a["rightsList"] = match spdx_license_id(license) {
            Some(id) => json!([{
                "rights": license,
                "rightsUri": format!("https://spdx.org/licenses/{id}.html"),
                "rightsIdentifier": id.to_lowercase(),
                "rightsIdentifierScheme": "SPDX",
                "schemeUri": "https://spdx.org/licenses/",
            }]),
            None => json!([{ "rights": license }]),
        };
    }
    if let Some((rights, uri)) = access_right(&m.access) {
        // Beside the license, COAR's access right, as OpenAIRE's guidelines have it; an
        // embargo's end is the date the files become available.
        let entry = json!({ "rights": rights, "rightsUri": uri });
        match a["rightsList"].as_array_mut() {
            Some(list) => list.push(entry),
            None => a["rightsList"] = json!([entry]),
        }
    }
    // The dataset's own dates, then an embargo's end as the date the files are available.
    let mut dates: Vec<Value> = m
        .dates
        .iter()
        .map(|d| json!({ "date": d.date, "dateType": d.date_type }))
        .collect();
    if let Some(until) = m.access.embargo_until() {
        dates.push(json!({ "date": until, "dateType": "Available" }));
    }
    if !dates.is_empty() {
        a["dates"] = json!(dates);
    }
    if let Some(version) = &m.version {
        a["version"] = json!(version);
    }
    if !m.locations.is_empty() {
        let each = m.locations.iter().map(geo_location);
        a["geoLocations"] = json!(each.collect::<Vec<_>>());
    }
    // A work whose identifier is neither a DOI nor a URL is a metadata problem, and
    // metadata with a problem is refused before it is queued; none is left out here.
    let mut related: Vec<Value> = m
        .related
        .iter()
        .filter_map(|r| {
            Some(json!({
                "relatedIdentifier": r.identifier,
                "relatedIdentifierType": r.scheme()?.datacite(),
                "relationType": r.relation,
            }))
        })
        .collect();
    if let Some(earlier) = earlier {
        related.push(json!({
            "relatedIdentifier": earlier,
            "relatedIdentifierType": "DOI",
            "relationType": "IsNewVersionOf",
        }));
    }
    if !related.is_empty() {
        a["relatedIdentifiers"] = json!(related);
    }
    if !m.contributors.is_empty() {
        a["contributors"] = json!(
            m.contributors
                .iter()
                .map(|c| {
                    let mut contributor = creator(&c.person());
                    contributor["contributorType"] = json!(c.role);
                    contributor
                })
                .collect::<Vec<_>>()
        );
    }
    if !m.funding.is_empty() {
        // DataCite takes an award's number or its title alone, as given.
        a["fundingReferences"] = json!(
            m.funding
                .iter()
                .map(|f| {
                    let mut reference = json!({ "funderName": f.funder });
                    if let Some((id, scheme)) = f.funder_id.as_deref().and_then(funder_identifier) {
                        reference["funderIdentifier"] = json!(id);
                        reference["funderIdentifierType"] = json!(scheme.datacite());
                    }
                    if let Some(number) = &f.award_number {
                        reference["awardNumber"] = json!(number);
                    }
                    if let Some(title) = &f.award_title {
                        reference["awardTitle"] = json!(title);
                    }
                    reference
                })
                .collect::<Vec<_>>()
        );
    }
    a
}

/// The COAR access right of files that are not open (open files add nothing, so the
/// metadata of DOIs minted before access could be chosen is unchanged).
/// One location as DataCite's `geoLocation`: its place's name, point and box, each where
/// given, in decimal degrees.
fn geo_location(l: &Location) -> Value {
    let mut g = json!({});
    if !l.place.is_empty() {
        g["geoLocationPlace"] = json!(l.place);
    }
    if let Some((latitude, longitude)) = l.point() {
        g["geoLocationPoint"] = json!({"pointLatitude": latitude, "pointLongitude": longitude});
    }
    if let Some(b) = l.geo_box() {
        g["geoLocationBox"] = json!({
            "westBoundLongitude": b.west,
            "eastBoundLongitude": b.east,
            "southBoundLatitude": b.south,
            "northBoundLatitude": b.north,
        });
    }
    g
}

fn access_right(access: &FileAccess) -> Option<(&'static str, &'static str)> {
    match access {
        FileAccess::Open => None,
        FileAccess::Restricted => Some((
            "restricted access",
            "http://purl.org/coar/access_right/c_16ec",
        )),
        FileAccess::Embargoed { .. } => Some((
            "embargoed access",
            "http://purl.org/coar/access_right/c_f1cf",
        )),
    }
}

/// The content key a DOI's attributes carry, if Lodge minted it.
pub fn key_of(attributes: &Value) -> Option<String> {
    attributes
        .get("alternateIdentifiers")?
        .as_array()?
        .iter()
        .find(|i| {
            i.get("alternateIdentifierType").and_then(Value::as_str) == Some(KEY_IDENTIFIER_TYPE)
        })?
        .get("alternateIdentifier")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{ManifestEntry, Metadata, RelatedWork, Sha256Hex};

    /// A keyword given twice (a citation file's list) is sent once, in its first place.
    #[test]
    fn a_keyword_given_twice_is_sent_once() {
        let metadata = Metadata {
            keywords: vec!["weather".into(), "soil".into(), "weather".into()],
            ..Metadata::default()
        };
        let doc = ContentDocument::new(Vec::new(), &metadata);
        let a = attributes("10.80000/x", &doc.key(), &doc, DoiState::Draft, None, None);
        assert_eq!(
            a["subjects"],
            json!([{"subject": "weather"}, {"subject": "soil"}])
        );
    }

    /// A person with one name alone ("Zhang,") is sent with a family name and no given
    /// name, not an empty one; an organisation whose name has a comma is sent whole.
    #[test]
    fn one_name_alone_has_no_given_name_and_a_marked_organisation_is_sent_whole() {
        let zhang = creator(&Creator::named("Zhang,"));
        assert_eq!(
            zhang,
            json!({"name": "Zhang", "nameType": "Personal", "familyName": "Zhang"})
        );
        let berkeley = creator(&Creator {
            organisation: true,
            ..Creator::named("University of California, Berkeley")
        });
        assert_eq!(
            berkeley,
            json!({"name": "University of California, Berkeley", "nameType": "Organizational"})
        );
    }

    /// DataCite shows descriptions as plain text: one written as HTML (a .zenodo.json's)
    /// goes without its tags; plain text as it is.
    #[test]
    fn an_html_description_goes_to_datacite_as_plain_text() {
        let metadata = Metadata {
            description: Some("<p>Profiles from <em>Argo</em> floats.</p><p>Two</p>".into()),
            methods: Some("Depth < 2 m".into()),
            ..Metadata::default()
        };
        let doc = ContentDocument::new(Vec::new(), &metadata);
        let a = attributes("10.80000/x", &doc.key(), &doc, DoiState::Draft, None, None);
        assert_eq!(
            a["descriptions"][0]["description"],
            "Profiles from Argo floats.\n\nTwo"
        );
        assert_eq!(a["descriptions"][1]["description"], "Depth < 2 m");
    }

    #[test]
    fn a_license_is_an_spdx_identifier_only_when_it_is_one() {
        let rights_of = |license: &str| {
            let metadata = Metadata {
                license: Some(license.into()),
                ..Metadata::default()
            };
            let doc = ContentDocument::new(Vec::new(), &metadata);
            attributes("10.80000/x", &doc.key(), &doc, DoiState::Draft, None, None)["rightsList"]
                .clone()
        };
        let spdx = rights_of("cc-by-4.0");
        assert_eq!(spdx[0]["rightsIdentifier"], "cc-by-4.0");
        assert_eq!(spdx[0]["rightsIdentifierScheme"], "SPDX");
        assert_eq!(
            spdx[0]["rightsUri"],
            "https://spdx.org/licenses/CC-BY-4.0.html"
        );
        assert_eq!(
            rights_of("cc-by-4.0").as_array().unwrap().len(),
            1,
            "open files add none"
        );
        assert_eq!(
            rights_of("See LICENSE.txt in the dataset"),
            json!([{ "rights": "See LICENSE.txt in the dataset" }]),
            "no identifier that names no license"
        );
    }

    #[test]
    fn metadata_maps_to_schema_4_fields() {
        let metadata = Metadata {
            title: "Soil cores".into(),
            creators: vec![
                Creator {
                    name: "Curie, Marie".into(),
                    orcid: Some("0000-0002-1825-0097".into()),
                    ror: None,
                    affiliations: vec![Affiliation {
                        name: "Sorbonne".into(),
                        ror: Some("https://ror.org/02en5vm52".into()),
                    }],
                    organisation: false,
                },
                Creator::named("Lodge Lab"),
            ],
            description: Some("Cores".into()),
            publication_year: Some(2026),
            publisher: "Lab".into(),
            license: Some("CC-BY-4.0".into()),
            keywords: vec!["soil".into()],
            resource_type: "Dataset".into(),
            version: Some("1.0".into()),
            access: FileAccess::Embargoed {
                until: "2027-06-30".into(),
            },
            related: Vec::new(),
            funding: Vec::new(),
            contributors: Vec::new(),
            dates: Vec::new(),
            locations: Vec::new(),
            communities: Vec::new(),
            methods: None,
            language: Some("eng".into()),
        };
        let doc = ContentDocument::new(
            vec![ManifestEntry {
                path: "a".into(),
                size: 3,
                sha256: Sha256Hex::of(b"abc"),
            }],
            &metadata,
        );
        let key = doc.key();
        let a = attributes(
            "10.80000/abcd-ef12",
            &key,
            &doc,
            DoiState::Publish,
            Some("https://x"),
            None,
        );
        assert_eq!(a["event"], "publish");
        assert_eq!(a["creators"][0]["nameType"], "Personal");
        assert_eq!(a["creators"][0]["familyName"], "Curie");
        assert_eq!(a["creators"][0]["givenName"], "Marie");
        assert_eq!(
            a["creators"][0]["nameIdentifiers"][0]["nameIdentifier"],
            "https://orcid.org/0000-0002-1825-0097"
        );
        assert_eq!(
            a["creators"][0]["affiliation"],
            json!([{
                "name": "Sorbonne",
                "affiliationIdentifier": "https://ror.org/02en5vm52",
                "affiliationIdentifierScheme": "ROR",
                "schemeUri": "https://ror.org",
            }])
        );
        assert_eq!(a["creators"][1]["nameType"], "Organizational");
        assert!(a["creators"][1].get("affiliation").is_none());
        assert_eq!(a["titles"][0]["title"], "Soil cores");
        assert_eq!(a["publicationYear"], 2026);
        assert_eq!(a["types"]["resourceTypeGeneral"], "Dataset");
        assert_eq!(a["language"], "en", "ISO 639-1, as DataCite takes it");
        assert_eq!(a["descriptions"][0]["descriptionType"], "Abstract");
        assert_eq!(a["subjects"][0]["subject"], "soil");
        assert_eq!(a["rightsList"][0]["rightsIdentifier"], "cc-by-4.0");
        assert_eq!(
            a["rightsList"][1],
            json!({"rights": "embargoed access",
                   "rightsUri": "http://purl.org/coar/access_right/c_f1cf"})
        );
        assert_eq!(
            a["dates"],
            json!([{"date": "2027-06-30", "dateType": "Available"}])
        );
        assert_eq!(a["version"], "1.0");
        assert_eq!(key_of(&a), Some(key.to_hex()));
        assert!(a.get("relatedIdentifiers").is_none(), "a first version");
        let draft = attributes(
            "10.80000/abcd-ef12",
            &key,
            &doc,
            DoiState::Draft,
            None,
            None,
        );
        assert!(draft.get("event").is_none());
        let next = attributes(
            "10.80000/wxyz-0042",
            &key,
            &doc,
            DoiState::Draft,
            None,
            Some("10.80000/abcd-ef12"),
        );
        assert_eq!(
            next["relatedIdentifiers"],
            serde_json::json!([{
                "relatedIdentifier": "10.80000/abcd-ef12",
                "relatedIdentifierType": "DOI",
                "relationType": "IsNewVersionOf",
            }])
        );

        // The dataset's related works go first, the earlier version after them.
        let mut related = doc.clone();
        related.metadata.related = vec![
            RelatedWork::parse("IsSupplementTo 10.1234/paper").unwrap(),
            RelatedWork::parse("IsDocumentedBy https://example.org/methods").unwrap(),
        ];
        let next = attributes(
            "10.80000/wxyz-0042",
            &key,
            &related,
            DoiState::Draft,
            None,
            Some("10.80000/abcd-ef12"),
        );
        assert_eq!(
            next["relatedIdentifiers"],
            serde_json::json!([
                {"relatedIdentifier": "10.1234/paper", "relatedIdentifierType": "DOI",
                 "relationType": "IsSupplementTo"},
                {"relatedIdentifier": "https://example.org/methods",
                 "relatedIdentifierType": "URL", "relationType": "IsDocumentedBy"},
                {"relatedIdentifier": "10.80000/abcd-ef12", "relatedIdentifierType": "DOI",
                 "relationType": "IsNewVersionOf"},
            ])
        );

        // The draft DOI's attributes of the same document with other metadata.
        let draft_of = |doc: &ContentDocument| {
            attributes("10.80000/wxyz-0042", &key, doc, DoiState::Draft, None, None)
        };

        // Dates: the dataset's own, then the embargo's end.
        let mut dated = doc.clone();
        dated.metadata.dates =
            vec![crate::content::DatasetDate::parse("Collected 2025-03/2025-06").unwrap()];
        let a = draft_of(&dated);
        assert_eq!(
            a["dates"],
            json!([
                {"date": "2025-03/2025-06", "dateType": "Collected"},
                {"date": "2027-06-30", "dateType": "Available"},
            ])
        );

        // Methods: a description of their own, after the abstract.
        let mut described = doc.clone();
        described.metadata.methods = Some("Sieved at 2 mm".into());
        let a = attributes(
            "10.80000/wxyz-0042",
            &key,
            &described,
            DoiState::Draft,
            None,
            None,
        );
        assert_eq!(
            a["descriptions"],
            json!([
                {"description": "Cores", "descriptionType": "Abstract"},
                {"description": "Sieved at 2 mm", "descriptionType": "Methods"},
            ])
        );

        // Locations: each with its place, point and box where given, in degrees.
        let mut located = doc.clone();
        located.metadata.locations = ["Lake Zurich; lat=47.27; lon=8.65", "box=5.9,45.8,10.5,47.8"]
            .iter()
            .map(|l| crate::content::Location::parse(l).unwrap())
            .collect();
        let a = attributes(
            "10.80000/wxyz-0042",
            &key,
            &located,
            DoiState::Draft,
            None,
            None,
        );
        assert_eq!(
            a["geoLocations"],
            json!([
                {"geoLocationPlace": "Lake Zurich",
                 "geoLocationPoint": {"pointLatitude": 47.27, "pointLongitude": 8.65}},
                {"geoLocationBox": {"westBoundLongitude": 5.9, "eastBoundLongitude": 10.5,
                                    "southBoundLatitude": 45.8, "northBoundLatitude": 47.8}},
            ])
        );

        // Contributors: as creators, each with its contributor type.
        let mut credited = doc.clone();
        credited.metadata.contributors = vec![
            crate::content::Contributor::parse(
                "Curie, Marie; role=ContactPerson; orcid=0000-0002-1825-0097",
            )
            .unwrap(),
            crate::content::Contributor::parse("Soil Lab; role=HostingInstitution").unwrap(),
        ];
        let a = draft_of(&credited);
        assert_eq!(
            a["contributors"],
            serde_json::json!([
                {"name": "Curie, Marie", "nameType": "Personal", "familyName": "Curie",
                 "givenName": "Marie", "contributorType": "ContactPerson",
                 "nameIdentifiers": [{"nameIdentifier": "https://orcid.org/0000-0002-1825-0097",
                   "nameIdentifierScheme": "ORCID", "schemeUri": "https://orcid.org"}]},
                {"name": "Soil Lab", "nameType": "Organizational",
                 "contributorType": "HostingInstitution"},
            ])
        );

        // Funding: each funder by name, an award's number and title as far as given.
        let plain = draft_of(&doc);
        assert!(plain.get("fundingReferences").is_none(), "none, none sent");
        let mut funded = doc.clone();
        funded.metadata.funding = vec![
            crate::content::Funding::parse("NSF; award=2045678; award-title=Cores").unwrap(),
            crate::content::Funding::parse("Wellcome Trust; award=WT-1").unwrap(),
            crate::content::Funding::parse("EC; funder-id=10.13039/501100000780").unwrap(),
            crate::content::Funding::parse("ERC; funder-id=https://ror.org/0472cxd90").unwrap(),
            crate::content::Funding::parse("Sloan Foundation").unwrap(),
        ];
        let a = draft_of(&funded);
        assert_eq!(
            a["fundingReferences"],
            serde_json::json!([
                {"funderName": "NSF", "awardNumber": "2045678", "awardTitle": "Cores"},
                {"funderName": "Wellcome Trust", "awardNumber": "WT-1"},
                {"funderName": "EC",
                 "funderIdentifier": "https://doi.org/10.13039/501100000780",
                 "funderIdentifierType": "Crossref Funder ID"},
                {"funderName": "ERC", "funderIdentifier": "https://ror.org/0472cxd90",
                 "funderIdentifierType": "ROR"},
                {"funderName": "Sloan Foundation"},
            ])
        );
    }
}
