//! The text fields of a `CITATION.cff` exactly as the file writes them.
//!
//! YAML reads a plain `True`, `yes` or `1.10` as a boolean or a number, and a parsed value
//! gives them back as `true` and `1.1`: a title, a version or a keyword is then not what the
//! person wrote. Read into fields that ask for text, the YAML parser hands over a plain scalar
//! as written, so this second reading keeps those fields' words. It covers the fields Lodge
//! takes as text; a file it cannot read this way (a field of another shape, which the
//! prefill reports anyway) yields nothing, and the parsed value's text stands.

use std::collections::HashMap;

use serde::Deserialize;

/// Text as written, by the field names the prefill's messages use (`title`,
/// `authors[0].family-names`, `keywords[2]`).
#[derive(Debug, Default)]
pub(super) struct CffAsWritten(HashMap<String, String>);

impl CffAsWritten {
    /// The text fields of `text`, a `CITATION.cff`; none when the file's fields are not all
    /// of the shapes read here.
    pub(super) fn read(text: &str) -> Self {
        let Ok(file) = serde_yaml_ng::from_str::<CffFile>(text) else {
            return Self::default();
        };
        let mut fields = HashMap::new();
        let mut put = |name: String, value: Option<String>| {
            if let Some(value) = value {
                fields.insert(name, value);
            }
        };
        put("title".into(), file.title);
        put("abstract".into(), file.abstract_text);
        put("version".into(), file.version);
        for (i, keyword) in file.keywords.into_iter().enumerate() {
            put(format!("keywords[{i}]"), keyword);
        }
        for (i, author) in file.authors.into_iter().enumerate() {
            let AuthorFile {
                family_names,
                given_names,
                name_particle,
                name_suffix,
                name,
                alias,
                affiliation,
            } = author;
            for (key, value) in [
                ("family-names", family_names),
                ("given-names", given_names),
                ("name-particle", name_particle),
                ("name-suffix", name_suffix),
                ("name", name),
                ("alias", alias),
                ("affiliation", affiliation),
            ] {
                put(format!("authors[{i}].{key}"), value);
            }
        }
        Self(fields)
    }

    /// The text of `field` as the file writes it, if read.
    pub(super) fn get(&self, field: &str) -> Option<&str> {
        self.0.get(field).map(String::as_str)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CffFile {
    title: Option<String>,
    #[serde(rename = "abstract")]
    abstract_text: Option<String>,
    version: Option<String>,
    keywords: Vec<Option<String>>,
    authors: Vec<AuthorFile>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "kebab-case")]
struct AuthorFile {
    family_names: Option<String>,
    given_names: Option<String>,
    name_particle: Option<String>,
    name_suffix: Option<String>,
    name: Option<String>,
    alias: Option<String>,
    affiliation: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_yaml_would_read_as_booleans_or_numbers_keep_their_words() {
        let written = CffAsWritten::read(
            "title: True\nversion: 1.10\nkeywords: [yes, 2.50, soil]\n\
             authors:\n  - family-names: 'No'\n    given-names: Off\n    affiliation: 1e3\n",
        );
        assert_eq!(written.get("title"), Some("True"));
        assert_eq!(written.get("version"), Some("1.10"));
        assert_eq!(written.get("keywords[0]"), Some("yes"));
        assert_eq!(written.get("keywords[1]"), Some("2.50"));
        assert_eq!(written.get("authors[0].given-names"), Some("Off"));
        assert_eq!(written.get("authors[0].affiliation"), Some("1e3"));
        assert_eq!(written.get("abstract"), None);
    }

    #[test]
    fn a_file_with_a_field_of_another_shape_yields_nothing() {
        let written = CffAsWritten::read("title: True\nkeywords: {a: b}\n");
        assert_eq!(written.get("title"), None);
    }
}
