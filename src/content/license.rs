//! Licenses: which of the free-text licenses a person gives are SPDX identifiers.
//!
//! The metadata keeps the license as written (it is part of the content key), and anything
//! is allowed: "CC-BY-4.0" as much as "See LICENSE.txt". What a repository is told differs:
//! an SPDX identifier goes out as an identifier (DataCite's `rightsIdentifier`, InvenioRDM's
//! license vocabulary), anything else as text only, since a repository would refuse (or,
//! worse, record) an identifier that names no license.

/// The SPDX license identifier `license` is, in SPDX's own casing (`cc-by-4.0` ->
/// `CC-BY-4.0`; identifiers are case-insensitive), if it is one.
pub fn spdx_license_id(license: &str) -> Option<&'static str> {
    let license = license.trim();
    spdx::identifiers::LICENSES
        .iter()
        .find(|l| l.name.eq_ignore_ascii_case(license))
        .map(|l| l.name)
}

/// Whether `license` is an SPDX expression of more than one license ("MIT OR
/// Apache-2.0", a `CITATION.cff`'s list of licenses): no one license is what it means, and
/// suggesting one would drop the others.
pub fn is_license_choice(license: &str) -> bool {
    let upper = license.to_ascii_uppercase();
    [" OR ", " AND ", " WITH "]
        .iter()
        .any(|operator| upper.contains(operator))
        && spdx::Expression::parse(license).is_ok()
}

/// License families, as people write them, and the identifier of the version meant.
const FAMILIES: [(&str, &str); 12] = [
    ("GPL", "GPL-3.0-or-later"),
    ("GNU-GPL", "GPL-3.0-or-later"),
    ("LGPL", "LGPL-3.0-or-later"),
    ("AGPL", "AGPL-3.0-or-later"),
    ("BSD", "BSD-3-Clause"),
    ("APACHE", "Apache-2.0"),
    ("MPL", "MPL-2.0"),
    ("ODBL", "ODbL-1.0"),
    ("ODC-BY", "ODC-By-1.0"),
    ("PDDL", "PDDL-1.0"),
    ("EUPL", "EUPL-1.2"),
    // Zenodo's legacy id for CC0 (its `.zenodo.json` files say `"license": "cc-zero"`).
    ("CC-ZERO", "CC0-1.0"),
];

/// The SPDX identifier `license` most likely means, when it is not one itself: "CC BY 4.0",
/// "Apache 2", "CC-BY 4". None when nothing is close.
pub fn spdx_suggestion(license: &str) -> Option<&'static str> {
    if spdx_license_id(license).is_some() || is_license_choice(license) {
        return None;
    }
    let dashed = license.trim().replace([' ', '_'], "-");
    if let Some(id) = spdx_license_id(&dashed).or_else(|| by_full_name(license)) {
        return Some(id);
    }
    // The name a license's own page gives it, its short form in brackets: "Attribution 4.0
    // International (CC BY 4.0)".
    if let Some((_, short)) = license
        .trim()
        .strip_suffix(')')
        .and_then(|l| l.rsplit_once('('))
        && let Some(id) = spdx_license_id(short).or_else(|| spdx_suggestion(short))
    {
        return Some(id);
    }
    // A Creative Commons license named without its version ("CC BY", "CC0") means the
    // current one, as repositories' license pickers offer it.
    if dashed.to_ascii_uppercase().starts_with("CC")
        && let Some(id) = ["-4.0", "-1.0"]
            .iter()
            .find_map(|version| spdx_license_id(&format!("{dashed}{version}")))
    {
        return Some(id);
    }
    // A license family named without its version means its current one, as license
    // pickers offer it; the nearest name by spelling would be another license altogether
    // ("GPL" is not "NGPL", "BSD" not "0BSD").
    let family = dashed.to_ascii_uppercase();
    if let Some((_, id)) = FAMILIES.iter().find(|(name, _)| *name == family) {
        return Some(id);
    }
    let names = spdx::identifiers::LICENSES.iter().map(|l| l.name);
    crate::wording::closest(&dashed, names, 0.75)
        .or_else(|| spdx::imprecise_license_id(license.trim()).map(|(id, _)| id.name))
}

/// The SPDX identifier of the license whose full name `license` is, as SPDX's list spells
/// it ("Creative Commons Attribution 4.0 International"), whatever its case and spacing,
/// with or without a "License" after it.
fn by_full_name(license: &str) -> Option<&'static str> {
    let words = |text: &str| -> String {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = text.to_lowercase();
        let text = text.strip_prefix("the ").unwrap_or(&text);
        let text = ["license", "licence"]
            .iter()
            .find_map(|word| text.strip_suffix(word))
            .unwrap_or(text);
        text.trim_end().to_string()
    };
    let wanted = words(license);
    if wanted.is_empty() {
        return None;
    }
    spdx::identifiers::LICENSES
        .iter()
        // A deprecated identifier can share its successor's name ("GPL-3.0+").
        .filter(|l| l.flags & spdx::flags::IS_DEPRECATED == 0)
        .find(|l| words(l.full_name) == wanted)
        .map(|l| l.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spdx_identifiers_are_found_whatever_their_case() {
        assert_eq!(spdx_license_id("CC-BY-4.0"), Some("CC-BY-4.0"));
        assert_eq!(spdx_license_id(" cc-by-4.0 "), Some("CC-BY-4.0"));
        assert_eq!(spdx_license_id("mit"), Some("MIT"));
        assert_eq!(spdx_license_id("See LICENSE.txt"), None);
        assert_eq!(spdx_license_id("CC BY 4.0"), None);
    }

    #[test]
    fn a_near_miss_is_answered_with_the_identifier_meant() {
        assert_eq!(spdx_suggestion("CC BY 4.0"), Some("CC-BY-4.0"));
        assert_eq!(
            spdx_suggestion("cc-zero"),
            Some("CC0-1.0"),
            "Zenodo's legacy id"
        );
        assert_eq!(spdx_suggestion("CC-BY 4"), Some("CC-BY-4.0"));
        assert_eq!(spdx_suggestion("Apache 2.0"), Some("Apache-2.0"));
        // Creative Commons without a version: the current one.
        assert_eq!(spdx_suggestion("CC BY"), Some("CC-BY-4.0"));
        assert_eq!(spdx_suggestion("cc by-sa"), Some("CC-BY-SA-4.0"));
        assert_eq!(spdx_suggestion("CC0"), Some("CC0-1.0"));
        assert_eq!(spdx_suggestion("CC-BY-4.0"), None, "already one");
        // Its full name, as SPDX's list and the license's own page give it.
        for full in [
            "Creative Commons Attribution 4.0 International",
            "creative commons attribution 4.0 international license",
            "  Creative Commons  Attribution 4.0 International  ",
            "Attribution 4.0 International (CC BY 4.0)",
        ] {
            assert_eq!(spdx_suggestion(full), Some("CC-BY-4.0"), "{full}");
        }
        assert_eq!(spdx_suggestion("MIT License"), Some("MIT"));
        assert_eq!(
            spdx_suggestion("GNU General Public License v3.0 or later"),
            Some("GPL-3.0-or-later")
        );
        assert_eq!(spdx_suggestion("All rights reserved by the lab"), None);
        // A family without its version: its current one, not the nearest spelling.
        assert_eq!(spdx_suggestion("GPL"), Some("GPL-3.0-or-later"));
        assert_eq!(spdx_suggestion("BSD"), Some("BSD-3-Clause"));
        assert_eq!(spdx_suggestion("ODbL"), Some("ODbL-1.0"));
        assert_eq!(spdx_suggestion("apache"), Some("Apache-2.0"));
        for (_, id) in FAMILIES {
            assert_eq!(spdx_license_id(id), Some(id), "a real SPDX identifier");
        }
    }

    /// A choice of licenses (a `CITATION.cff`'s list) is not answered with one of them:
    /// taking the suggestion would drop the others.
    #[test]
    fn a_choice_of_licenses_is_not_answered_with_one_of_them() {
        for choice in [
            "MIT OR Apache-2.0",
            "GPL-2.0-or-later WITH Classpath-exception-2.0",
            "CC-BY-4.0 AND ODbL-1.0",
        ] {
            assert!(is_license_choice(choice), "{choice}");
            assert_eq!(spdx_suggestion(choice), None, "{choice}");
        }
        assert!(!is_license_choice("MIT"));
        assert!(!is_license_choice("Free for research or teaching"));
        assert_eq!(spdx_suggestion("Apache 2.0"), Some("Apache-2.0"));
    }
}
