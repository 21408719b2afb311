//! The language of a dataset's content (of its texts, transcripts, interviews, labels):
//! given as an ISO 639 code or an English name, keyed as its ISO 639-3 code.
//!
//! ISO 639-3 is what InvenioRDM's languages vocabulary (Zenodo's too) names a language by;
//! DataCite takes a BCP 47 tag, which for a language is its two-letter ISO 639-1 code where
//! it has one and its ISO 639-3 code otherwise. So `en`, `eng`, `English` and `english` are
//! one language and key the same. The table of codes and names is the `isolang` crate's.

use std::collections::HashMap;
use std::sync::OnceLock;

use isolang::Language;

/// How a language is written on the command line and in the window.
pub const EXAMPLE: &str = "en";

/// ISO 639-2/B codes (bibliographic, from library catalogues: `ger`, `fre`) of the languages
/// whose ISO 639-3 code differs, and that code. A `.zenodo.json`'s `language` may be one.
const BIBLIOGRAPHIC: &[(&str, &str)] = &[
    ("alb", "sqi"),
    ("arm", "hye"),
    ("baq", "eus"),
    ("bur", "mya"),
    ("chi", "zho"),
    ("cze", "ces"),
    ("dut", "nld"),
    ("fre", "fra"),
    ("geo", "kat"),
    ("ger", "deu"),
    ("gre", "ell"),
    ("ice", "isl"),
    ("mac", "mkd"),
    ("mao", "mri"),
    ("may", "msa"),
    ("per", "fas"),
    ("rum", "ron"),
    ("slo", "slk"),
    ("tib", "bod"),
    ("wel", "cym"),
];

/// The language `text` names: an ISO 639-1, 639-3 or 639-2/B code, or an English name, in
/// any case; a tag with a region or script (`en-GB`, `pt_BR`, `zh-Hant`) names its
/// language. `None` when it names none.
fn language_of(text: &str) -> Option<Language> {
    let text = text.trim();
    let lower = text.to_lowercase();
    let code = lower.split(['-', '_']).next().unwrap_or_default();
    let is_code = code.len() < lower.len() || text.len() <= 3;
    if is_code && code.bytes().all(|b| b.is_ascii_lowercase()) {
        let code = BIBLIOGRAPHIC
            .iter()
            .find(|(b, _)| *b == code)
            .map_or(code, |(_, t)| t);
        let found = match code.len() {
            2 => Language::from_639_1(code),
            3 => Language::from_639_3(code),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    // A name may hold a hyphen too: "Afro-Seminole Creole".
    by_name(&lower)
}

/// The language whose English name, in lower case, is `lower` (the first of ISO 639-3's
/// languages by that name, as `isolang`'s own lookup). The names are indexed once: the
/// window shows a dataset's language by its name every frame its details are open.
fn by_name(lower: &str) -> Option<Language> {
    static NAMES: OnceLock<HashMap<String, Language>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut names = HashMap::new();
        for language in isolang::languages() {
            names
                .entry(language.to_name().to_lowercase())
                .or_insert(language);
        }
        names
    });
    names.get(lower).copied()
}

/// `text` as it is keyed: the ISO 639-3 code of the language it names, or, when it names
/// none, as written (for [`language_problem`] to name).
pub fn keyed_language(text: &str) -> String {
    language_of(text).map_or_else(|| text.trim().to_string(), |l| l.to_639_3().to_string())
}

/// What is wrong with `text` as a dataset's language, worded for the person who fixes it;
/// `None` when it names one.
pub fn language_problem(text: &str) -> Option<String> {
    if language_of(text).is_some() {
        return None;
    }
    let said = text.trim();
    // Suggested among the languages with a two-letter code, the ones most written in: a
    // closer name among ISO 639-3's seven thousand is more often another language.
    let common = isolang::languages()
        .filter(|l| l.to_639_1().is_some())
        .map(|l| l.to_name());
    let give = "give an ISO 639 code or an English name";
    Some(match crate::wording::closest(said, common, 0.7) {
        Some(name) => format!("'{said}' is not a language: did you mean {name}? Or {give}"),
        None => format!("'{said}' is not a language: {give}, as en or English, de or German"),
    })
}

/// The language of keyed code `code` as DataCite takes it: its ISO 639-1 code where it has
/// one, else its ISO 639-3 code.
pub fn datacite_language(code: &str) -> String {
    Language::from_639_3(code)
        .and_then(|l| l.to_639_1())
        .map_or_else(|| code.to_string(), str::to_string)
}

/// The English name of the language of keyed code `code`, for people to read (`code`
/// itself when it is none).
pub fn language_name(code: &str) -> String {
    Language::from_639_3(code).map_or_else(|| code.to_string(), |l| l.to_name().to_string())
}

/// The language of keyed code `code` as the window and `lodge show` write it: its English
/// name where that name reads back as the same code, else the code (`swh`, whose name
/// Swahili is also the macrolanguage `swa`'s; a code that is no language).
pub fn language_shown(code: &str) -> String {
    let name = language_name(code);
    match keyed_language(&name) == code {
        true => name,
        false => code.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_in_any_of_its_spellings_is_keyed_as_its_iso_639_3_code() {
        for (given, keyed) in [
            ("en", "eng"),
            ("EN", "eng"),
            ("eng", "eng"),
            ("English", "eng"),
            (" english ", "eng"),
            ("en-GB", "eng"),
            ("pt_BR", "por"),
            ("ger", "deu"),
            ("de", "deu"),
            ("German", "deu"),
            ("fre", "fra"),
            ("gsw", "gsw"),
            ("zxx", "zxx"),
            ("Modern Greek", "ell"),
            ("afro-seminole creole", "afs"),
        ] {
            assert_eq!(keyed_language(given), keyed, "{given}");
            assert_eq!(keyed_language(keyed), keyed, "read back");
            assert_eq!(language_problem(given), None, "{given}");
        }
    }

    #[test]
    fn datacite_gets_the_two_letter_code_where_there_is_one() {
        assert_eq!(datacite_language("eng"), "en");
        assert_eq!(datacite_language("deu"), "de");
        assert_eq!(datacite_language("gsw"), "gsw");
        assert_eq!(language_name("deu"), "German");
        assert_eq!(language_name("xq9"), "xq9");
        assert_eq!(language_shown("deu"), "German");
        assert_eq!(language_shown("xq9"), "xq9");
        // Every language is shown as what keys as it again.
        for l in isolang::languages() {
            let code = l.to_639_3();
            assert_eq!(keyed_language(&language_shown(code)), code);
        }
    }

    #[test]
    fn text_that_names_no_language_is_a_problem_with_the_one_most_likely_meant() {
        assert_eq!(keyed_language(" Englsh "), "Englsh", "kept as written");
        let why = language_problem("Englsh").unwrap();
        assert_eq!(
            why,
            "'Englsh' is not a language: did you mean English? Or give an ISO 639 code or an \
             English name"
        );
        for nothing in ["xx", "x-y", "Klingonese 2", "é"] {
            assert!(language_problem(nothing).is_some(), "{nothing}");
        }
        let why = language_problem("xx").unwrap();
        assert!(
            why.ends_with(
                "give an ISO 639 code or an English name, as en or English, de or German"
            ),
            "{why}"
        );
    }
}
