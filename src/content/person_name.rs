//! Creators' names that look like a person's written without the comma.
//!
//! A creator is `"Family, Given"` for a person or an organisation's name as it is: the
//! comma is what tells them apart, and repositories are told so (DataCite's `nameType`
//! `Personal` or `Organizational`). "Jane Doe" would go out as an organisation named
//! "Jane Doe", in a DOI's metadata for good. Lodge does not refuse it (it may be right), but
//! says so, with the `"Family, Given"` form it most likely means.

use super::Creator;

/// Words that make a name an organisation's, whatever else it looks like.
const ORGANISATION_WORDS: &[&str] = &[
    "academy",
    "administration",
    "agency",
    "alliance",
    "archive",
    "archives",
    "association",
    "authority",
    "bank",
    "board",
    "bureau",
    "center",
    "centre",
    "clinic",
    "club",
    "collaboration",
    "collective",
    "college",
    "commission",
    "committee",
    "company",
    "consortium",
    "corporation",
    "council",
    "data",
    "department",
    "facility",
    "federation",
    "foundation",
    "fund",
    "gmbh",
    "group",
    "groups",
    "health",
    "hospital",
    "inc",
    "initiative",
    "institut",
    "institute",
    "institutes",
    "lab",
    "laboratory",
    "labs",
    "library",
    "ltd",
    "media",
    "medical",
    "ministry",
    "museum",
    "network",
    "observatory",
    "office",
    "organisation",
    "organization",
    "partners",
    "partnership",
    "press",
    "program",
    "programme",
    "project",
    "publishers",
    "publishing",
    "research",
    "school",
    "science",
    "sciences",
    "service",
    "services",
    "society",
    "solutions",
    "station",
    "studies",
    "studio",
    "survey",
    "systems",
    "team",
    "technologies",
    "trust",
    "union",
    "unit",
    "universities",
    "university",
    "universität",
    "works",
    "zentrum",
];

/// The `"Family, Given"` form of `creator`'s name when it looks like a person's written
/// without a comma ("Jane Doe" -> "Doe, Jane"); `None` when it has a comma or looks like
/// an organisation's. An ORCID iD (only people have one) settles it for any name of two
/// words or more; without one, every word must be written as a name is (capitalised, not
/// an acronym), the family name at least two letters, and none an organisation's word.
pub fn as_person(creator: &Creator) -> Option<String> {
    let name = creator.name.trim();
    if name.contains(',') {
        return None;
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    let (family, given) = words.split_last()?;
    if given.is_empty() || words.len() > 4 {
        return None;
    }
    // A ROR of its own (only organisations have one) settles it the other way.
    if creator.ror.as_deref().is_some_and(|r| !r.trim().is_empty()) {
        return None;
    }
    let has_orcid = creator
        .orcid
        .as_deref()
        .is_some_and(|o| !o.trim().is_empty());
    let looks_personal = is_name_word(family)
        && family.chars().count() >= 2
        && given.iter().all(|w| is_name_word(w) || is_initial(w))
        && !words
            .iter()
            .any(|w| ORGANISATION_WORDS.contains(&w.trim_end_matches('.').to_lowercase().as_str()));
    (has_orcid || looks_personal).then(|| format!("{family}, {}", given.join(" ")))
}

/// Whether `name` holds a word only organisations' names have ("University of California,
/// Berkeley", "Max Planck Institute for Chemistry, Mainz"): a name with a comma that does is
/// most likely an organisation's, not a person's "Family, Given".
pub fn has_organisation_word(name: &str) -> bool {
    name.split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .any(|w| ORGANISATION_WORDS.contains(&w.as_str()))
}

/// "Doe", "O'Brien", "Smith-Jones", "McDonald", "Łukasz": a capital, then letters with at
/// least one lower-case one (so not an acronym such as "NASA").
fn is_name_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && chars.clone().any(char::is_lowercase)
        && chars.all(|c| c.is_alphabetic() || c == '\'' || c == '’' || c == '-')
}

/// "J" or "J.".
fn is_initial(word: &str) -> bool {
    let mut chars = word.trim_end_matches('.').chars();
    chars.next().is_some_and(char::is_uppercase) && chars.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> Option<String> {
        as_person(&Creator::named(name))
    }

    #[test]
    fn an_organisations_word_is_found_beside_a_comma_and_in_any_case() {
        assert!(has_organisation_word("University of California, Berkeley"));
        assert!(has_organisation_word(
            "Max Planck INSTITUTE for Chemistry,Mainz"
        ));
        assert!(!has_organisation_word("Curie, Marie"));
        assert!(
            !has_organisation_word("Labrador, Ann"),
            "a word, not a part of one"
        );
    }

    #[test]
    fn a_persons_name_without_a_comma_gets_its_family_given_form() {
        assert_eq!(person("Jane Doe").as_deref(), Some("Doe, Jane"));
        assert_eq!(person("Marie Curie").as_deref(), Some("Curie, Marie"));
        assert_eq!(person("Jane Q. Doe").as_deref(), Some("Doe, Jane Q."));
        assert_eq!(
            person("Siobhán O'Brien").as_deref(),
            Some("O'Brien, Siobhán")
        );
        assert_eq!(
            person("  Ana  Smith-Jones ").as_deref(),
            Some("Smith-Jones, Ana")
        );
    }

    #[test]
    fn organisations_single_names_and_names_with_a_comma_are_left_alone() {
        for name in [
            "Doe, Jane",
            "British Antarctic Survey",
            "Max Planck Society",
            "Alfred Wegener Institute",
            "Soil Lab",
            "NASA Goddard",
            "Google Research",
            "Copernicus Climate Data Store",
            "CERN",
            "Jane",
            "Jane D",
            "Ludwig van Beethoven",
            "The Open University of Somewhere Far",
            "",
        ] {
            assert_eq!(person(name), None, "{name}");
        }
    }

    #[test]
    fn an_orcid_makes_any_name_of_two_words_a_persons() {
        let mut c = Creator::named("jane doe");
        assert_eq!(as_person(&c), None);
        c.orcid = Some("0000-0002-1825-0097".into());
        assert_eq!(as_person(&c).as_deref(), Some("doe, jane"));
    }
}
