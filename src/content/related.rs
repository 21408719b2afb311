//! Related works: the paper a dataset supplements, the data it was derived from, the software
//! that made it. Each is a DataCite relation type and an identifier (a DOI or an http(s)
//! URL); the targets send them as DataCite's `relatedIdentifiers` and InvenioRDM's
//! `related_identifiers`, so the link stands on the record from its first version. Like all
//! metadata they take part in the content key; a dataset with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// DataCite's relation types (schema 4.3, which InvenioRDM's relation types vocabulary
/// follows, its ids the same names in lower case), as DataCite spells them.
pub const RELATION_TYPES: &[&str] = &[
    "IsCitedBy",
    "Cites",
    "IsSupplementTo",
    "IsSupplementedBy",
    "IsContinuedBy",
    "Continues",
    "IsDescribedBy",
    "Describes",
    "HasMetadata",
    "IsMetadataFor",
    "HasVersion",
    "IsVersionOf",
    "IsNewVersionOf",
    "IsPreviousVersionOf",
    "IsPartOf",
    "HasPart",
    "IsReferencedBy",
    "References",
    "IsDocumentedBy",
    "Documents",
    "IsCompiledBy",
    "Compiles",
    "IsVariantFormOf",
    "IsOriginalFormOf",
    "IsIdenticalTo",
    "IsReviewedBy",
    "Reviews",
    "IsDerivedFrom",
    "IsSourceOf",
    "IsRequiredBy",
    "Requires",
    "IsObsoletedBy",
    "Obsoletes",
];

/// How a related work is written on the command line and in the window.
pub const EXAMPLE: &str = "IsSupplementTo 10.1234/abc";

/// One work this dataset is related to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelatedWork {
    /// How this dataset relates to the work: one of [`RELATION_TYPES`] (`IsSupplementTo`:
    /// this dataset supplements that paper).
    pub relation: String,
    /// The work's DOI (bare, `10.1234/abc`, in lower case as DOIs are case-blind) or an
    /// http(s) URL.
    pub identifier: String,
}

/// What kind of identifier a related work has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentifierScheme {
    Doi,
    Url,
}

impl IdentifierScheme {
    /// DataCite's `relatedIdentifierType`.
    pub fn datacite(self) -> &'static str {
        match self {
            IdentifierScheme::Doi => "DOI",
            IdentifierScheme::Url => "URL",
        }
    }

    /// InvenioRDM's identifier scheme.
    pub fn invenio(self) -> &'static str {
        match self {
            IdentifierScheme::Doi => "doi",
            IdentifierScheme::Url => "url",
        }
    }
}

impl RelatedWork {
    /// `"IsSupplementTo 10.1234/abc"`: a relation type, then (after spaces) the identifier.
    /// Either may still be wrong (see [`RelatedWork::problem`]); only a text without both
    /// parts is refused here.
    pub fn parse(text: &str) -> Result<RelatedWork, String> {
        let text = text.trim();
        match text.split_once(char::is_whitespace) {
            Some((relation, identifier)) if !identifier.trim().is_empty() => Ok(RelatedWork {
                relation: relation.to_string(),
                identifier: identifier.trim().to_string(),
            }
            .normalized()),
            _ => Err(format!(
                "'{text}' is not a related work: write the relation, then the DOI or URL, \
                 e.g. \"{EXAMPLE}\""
            )),
        }
    }

    /// The keyed form: the relation as DataCite spells it (when it is one, in any case),
    /// a DOI bare and in lower case however it was written (`doi:`, a doi.org link), text
    /// trimmed and in Unicode NFC.
    pub fn normalized(&self) -> RelatedWork {
        let relation: String = self.relation.trim().nfc().collect();
        let relation = RELATION_TYPES
            .iter()
            .find(|r| r.eq_ignore_ascii_case(&relation))
            .map_or(relation, |r| r.to_string());
        let identifier: String = self.identifier.trim().nfc().collect();
        let identifier = match bare_doi(&identifier) {
            // In NFC again: lower case can take a letter out of it.
            Some(doi) => doi.to_lowercase().nfc().collect(),
            None => identifier,
        };
        RelatedWork {
            relation,
            identifier,
        }
    }

    /// Whether the identifier is a DOI or a URL; `None` when it is neither.
    pub fn scheme(&self) -> Option<IdentifierScheme> {
        let id = self.identifier.trim();
        if bare_doi(id).is_some() {
            return Some(IdentifierScheme::Doi);
        }
        let url = url::Url::parse(id).ok()?;
        (matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
            .then_some(IdentifierScheme::Url)
    }

    /// What is wrong with it, worded for the person who fixes it; `None` when it can be
    /// sent.
    pub fn problem(&self) -> Option<String> {
        let m = self.normalized();
        if m.identifier.is_empty() || m.relation.is_empty() {
            return Some(format!(
                "'{}' needs a relation type and a DOI or URL, e.g. \"{EXAMPLE}\"",
                m.describe()
            ));
        }
        if !RELATION_TYPES.contains(&m.relation.as_str()) {
            let hint =
                match crate::wording::closest(&m.relation, RELATION_TYPES.iter().copied(), 0.7) {
                    Some(close) => format!("did you mean {close}?"),
                    None => "for example IsSupplementTo (this dataset supplements a paper), \
                         IsDerivedFrom, References, IsDocumentedBy or IsPartOf"
                        .to_string(),
                };
            return Some(format!(
                "'{}' is not a DataCite relation type: {hint}",
                m.relation
            ));
        }
        if m.scheme().is_none() {
            return Some(format!(
                "'{}' is neither a DOI (10.1234/abc) nor an http(s) URL",
                m.identifier
            ));
        }
        None
    }

    /// As it is written: `IsSupplementTo 10.1234/abc`.
    pub fn describe(&self) -> String {
        format!("{} {}", self.relation, self.identifier)
            .trim()
            .to_string()
    }
}

/// The bare DOI in `id` (`10.1234/abc`), written bare, with `doi:` in front or as a
/// doi.org link; `None` if it is not a DOI. A DOI is `10.`, a registrant code of digits
/// (and dots), `/` and a suffix without spaces.
pub(super) fn bare_doi(id: &str) -> Option<&str> {
    let lower = id.to_ascii_lowercase();
    let prefix_len = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find(|p| lower.starts_with(*p))
    .map_or(0, |p| p.len());
    let doi = id[prefix_len..].trim_start();
    let (registrant, suffix) = doi.strip_prefix("10.")?.split_once('/')?;
    let registrant_ok = !registrant.is_empty()
        && registrant.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !registrant.ends_with('.');
    let suffix_ok = !suffix.is_empty() && !suffix.chars().any(char::is_whitespace);
    (registrant_ok && suffix_ok).then_some(doi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(relation: &str, identifier: &str) -> RelatedWork {
        RelatedWork {
            relation: relation.into(),
            identifier: identifier.into(),
        }
    }

    #[test]
    fn a_related_work_is_a_relation_then_an_identifier() {
        let w = RelatedWork::parse("  IsSupplementTo   10.1234/ABC.5 ").unwrap();
        assert_eq!(w, work("IsSupplementTo", "10.1234/abc.5"));
        assert_eq!(w.describe(), "IsSupplementTo 10.1234/abc.5");
        for refused in ["", "IsSupplementTo", "   10.1234/abc   "] {
            let why = RelatedWork::parse(refused).unwrap_err();
            assert!(why.contains(EXAMPLE), "{refused:?}: {why}");
        }
    }

    #[test]
    fn every_spelling_of_a_doi_and_a_relation_keys_the_same() {
        let same = [
            work("IsSupplementTo", "10.1234/abc"),
            work("issupplementto", "doi:10.1234/ABC"),
            work("ISSUPPLEMENTTO", "https://doi.org/10.1234/abc"),
            work(" IsSupplementTo", "http://dx.doi.org/10.1234/Abc "),
        ];
        for w in &same {
            assert_eq!(w.normalized(), same[0], "{w:?}");
            assert_eq!(w.scheme(), Some(IdentifierScheme::Doi));
            assert_eq!(w.problem(), None);
        }
        let url = work("References", "https://example.org/Paper.PDF");
        assert_eq!(url.normalized(), url, "a URL keeps its case");
        assert_eq!(url.scheme(), Some(IdentifierScheme::Url));
    }

    #[test]
    fn an_unknown_relation_or_an_identifier_that_is_neither_doi_nor_url_is_a_problem() {
        let close = work("IsSuplementTo", "10.1234/abc").problem().unwrap();
        assert!(close.contains("did you mean IsSupplementTo?"), "{close}");
        let far = work("LooksLike", "10.1234/abc").problem().unwrap();
        assert!(
            far.contains("'LooksLike' is not a DataCite relation type"),
            "{far}"
        );
        for id in [
            "10.1234",
            "10./abc",
            "10.12a/abc",
            "ftp://example.org/x",
            "paper",
        ] {
            let why = work("Cites", id).problem().unwrap();
            assert!(why.contains("neither a DOI"), "{id}: {why}");
        }
        for half in [work("IsSupplementTo", ""), work("", "10.1234/abc")] {
            let why = half.problem().unwrap();
            assert!(
                why.contains("needs a relation type and a DOI or URL"),
                "{why}"
            );
        }
    }
}
