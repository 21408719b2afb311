//! Metadata with arbitrary field values, as a form or a citation file may hold them: the
//! properties of `lodge_fuzz::check_metadata` (validation gives messages, normalising twice
//! changes nothing, the round trips keep it) hold for any text in any field.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use lodge::content::{
    Affiliation, Contributor, Creator, DatasetDate, FileAccess, Funding, Location, Metadata, RelatedWork,
};

#[derive(Arbitrary, Debug)]
struct Fields {
    title: String,
    /// Name, ORCID, own ROR, affiliations (each a name and a ROR) and whether it is
    /// marked an organisation, of each creator.
    #[allow(clippy::type_complexity)]
    creators: Vec<(
        String,
        Option<String>,
        Option<String>,
        Vec<(String, Option<String>)>,
        bool,
    )>,
    description: Option<String>,
    publication_year: Option<i32>,
    publisher: String,
    license: Option<String>,
    keywords: Vec<String>,
    resource_type: String,
    version: Option<String>,
    /// None: open; an empty date: restricted; any other text: embargoed until it.
    embargo_until: Option<String>,
    /// Relation and identifier of each related work.
    related: Vec<(String, String)>,
    /// Funder, funder id, award number and award title of each funding.
    funding: Vec<(String, Option<String>, Option<String>, Option<String>)>,
    /// Name, role, ORCID, own ROR, affiliations (each a name and a ROR) and whether it is
    /// marked an organisation, of each contributor.
    #[allow(clippy::type_complexity)]
    contributors: Vec<(
        String,
        String,
        Option<String>,
        Option<String>,
        Vec<(String, Option<String>)>,
        bool,
    )>,
    /// Type and date of each date.
    dates: Vec<(String, String)>,
    /// Place, latitude, longitude and box of each location.
    locations: Vec<(String, Option<String>, Option<String>, Option<String>)>,
    /// Each community's name, as given.
    communities: Vec<String>,
    methods: Option<String>,
    language: Option<String>,
}

fn affiliations_of(given: Vec<(String, Option<String>)>) -> Vec<Affiliation> {
    given
        .into_iter()
        .map(|(name, ror)| Affiliation { name, ror })
        .collect()
}

fuzz_target!(|f: Fields| {
    let metadata = Metadata {
        title: f.title,
        creators: f
            .creators
            .into_iter()
            .map(|(name, orcid, ror, affiliations, organisation)| Creator {
                name,
                orcid,
                ror,
                affiliations: affiliations_of(affiliations),
                organisation,
            })
            .collect(),
        description: f.description,
        publication_year: f.publication_year,
        publisher: f.publisher,
        license: f.license,
        keywords: f.keywords,
        resource_type: f.resource_type,
        version: f.version,
        access: match f.embargo_until {
            None => FileAccess::Open,
            Some(until) if until.is_empty() => FileAccess::Restricted,
            Some(until) => FileAccess::Embargoed { until },
        },
        related: f
            .related
            .into_iter()
            .map(|(relation, identifier)| RelatedWork {
                relation,
                identifier,
            })
            .collect(),
        funding: f
            .funding
            .into_iter()
            .map(|(funder, funder_id, award_number, award_title)| Funding {
                funder,
                funder_id,
                award_number,
                award_title,
            })
            .collect(),
        contributors: f
            .contributors
            .into_iter()
            .map(|(name, role, orcid, ror, affiliations, organisation)| Contributor {
                name,
                role,
                orcid,
                ror,
                affiliations: affiliations_of(affiliations),
                organisation,
            })
            .collect(),
        dates: f
            .dates
            .into_iter()
            .map(|(date_type, date)| DatasetDate { date_type, date })
            .collect(),
        locations: f
            .locations
            .into_iter()
            .map(|(place, latitude, longitude, bbox)| Location {
                place,
                latitude,
                longitude,
                bbox,
            })
            .collect(),
        communities: f.communities,
        methods: f.methods,
        language: f.language,
    };
    lodge_fuzz::check_metadata(&metadata);
});
