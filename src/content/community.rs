//! Communities: the collections of an InvenioRDM site (Zenodo's communities: a project's, a
//! journal's, a field's) a dataset is asked to be included in, each by its short name (the
//! part after `/communities/` in its address). InvenioRDM and Zenodo get a request to
//! include the published record in each, which the community's curators accept; other
//! targets keep them in the record's metadata. Like all metadata they take part in the
//! content key; a dataset with none keys as it always did.

use unicode_normalization::UnicodeNormalization;

/// How a community is written on the command line and in the window.
pub const EXAMPLE: &str = "soil-science";

/// `text` as keyed: trimmed, in lower case, and a community's address (or an address of
/// one of its pages) taken down to its short name: `https://zenodo.org/communities/Soil/`
/// is `soil`. An address that names no community is kept whole, for
/// [`community_problem`] to name rather than to be dropped as blank.
pub fn community_name(text: &str) -> String {
    let text: String = text.trim().nfc().collect();
    let name = match text.split_once("/communities/") {
        Some((_, rest)) => rest.split(['/', '?', '#']).next().unwrap_or_default(),
        None => text.as_str(),
    };
    match name.trim() {
        "" => text.to_lowercase(),
        name => name.to_lowercase(),
    }
}

/// What is wrong with community `name` (as keyed), worded for the person who fixes it;
/// `None` when it can be sent.
pub fn community_problem(name: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    if name.is_empty() {
        return Some("names no community".into());
    }
    (!name.chars().all(allowed)).then(|| {
        format!(
            "'{name}' is not a community's short name: write the part after /communities/ in \
             its address, e.g. {EXAMPLE} (letters, digits, '-' and '_')"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_community_is_its_short_name_however_it_is_given() {
        assert_eq!(community_name(" Soil-Science "), "soil-science");
        for address in [
            "https://zenodo.org/communities/soil-science",
            "https://zenodo.org/communities/soil-science/",
            "https://zenodo.org/communities/Soil-Science/records?q=x",
            "zenodo.org/communities/soil-science#about",
        ] {
            assert_eq!(community_name(address), "soil-science", "{address}");
        }
    }

    #[test]
    fn a_name_that_is_not_a_short_name_is_a_problem_naming_the_fix() {
        assert_eq!(community_problem("soil_science-2"), None);
        assert_eq!(community_problem(""), Some("names no community".into()));
        let why = community_problem("soil science").unwrap();
        assert!(
            why.starts_with("'soil science' is not a community's short name"),
            "{why}"
        );
        assert!(community_problem("https://zenodo.org/").is_some());
        // An address with no community in it is named, not dropped as blank.
        let bare = community_name("https://zenodo.org/communities/");
        assert_eq!(bare, "https://zenodo.org/communities/");
        assert!(community_problem(&bare).is_some());
    }
}
