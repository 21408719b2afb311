//! Affiliations: the organisations a creator or contributor belongs to, each named and,
//! where known, identified by its ROR. A person may have several (a university and the
//! institute they work at), as DataCite and InvenioRDM both list them.
//!
//! The keyed form keeps the first one where it was when a person could have only one
//! (`affiliation` and `affiliation_ror` beside the name) and lists the others after it
//! (`more_affiliations`), so a dataset keyed with one affiliation keys as it always did.
//!
//! Written as text (`--creator`, `--contributor`, the window's contributor lines), each
//! `affiliation=NAME` begins one and the `ror=ID` after it is that one's ROR; an
//! organisation's `ror=ID` written before any affiliation is its own.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::labelled::LabelledPart;
use super::ror::ror_address;

/// One organisation a person belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affiliation {
    /// Its name, as the repositories show it.
    pub name: String,
    /// Its ROR, keyed as its address (`https://ror.org/02en5vm52`), so that repositories link
    /// the dataset to the organisation itself rather than to a spelling of its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ror: Option<String>,
}

impl Affiliation {
    /// An affiliation with just a name.
    pub fn named(name: impl Into<String>) -> Self {
        Affiliation {
            name: name.into(),
            ror: None,
        }
    }

    /// The keyed form: the name trimmed and in Unicode NFC, a ROR as its address (anything
    /// else kept as written, for [`Affiliation::ror_problem`] to name).
    pub fn normalized(&self) -> Affiliation {
        let ror = self
            .ror
            .as_deref()
            .map(|r| r.trim().nfc().collect::<String>());
        Affiliation {
            name: self.name.trim().nfc().collect(),
            ror: ror
                .filter(|r| !r.is_empty())
                .map(|r| ror_address(&r).unwrap_or(r)),
        }
    }

    /// Nothing in it once normalised (an empty row of the window's form).
    pub fn is_blank(&self) -> bool {
        self.normalized() == Affiliation::default()
    }

    /// What is wrong with its ROR, worded for the person who fixes it: not a ROR, or a ROR
    /// without the organisation's name (which DataCite's metadata needs beside it). `None`
    /// when there is none or it can be sent.
    pub fn ror_problem(&self) -> Option<String> {
        let a = self.normalized();
        let ror = a.ror.as_deref()?;
        if let Err(why) = ror_address(ror) {
            return Some(why.explain(ror));
        }
        a.name.is_empty().then(|| {
            format!(
                "{ror} is given without the affiliation's name: add it (affiliation=NAME), as \
                 the repositories show the name beside the ROR"
            )
        })
    }
}

/// The field that names part of a person's `index`-th affiliation in a problem, below the
/// person's own field (`creators[0]`): where the keyed form holds it, so the window shows the
/// message beside the right box. `ror` picks the ROR rather than the name.
pub fn affiliation_field(person: &str, index: usize, ror: bool) -> String {
    match (index, ror) {
        (0, false) => format!("{person}.affiliation"),
        (0, true) => format!("{person}.affiliation_ror"),
        (i, false) => format!("{person}.more_affiliations[{}].name", i - 1),
        (i, true) => format!("{person}.more_affiliations[{}].ror", i - 1),
    }
}

/// `affiliations`, normalised, without the blank ones.
pub(super) fn normalized_affiliations(affiliations: &[Affiliation]) -> Vec<Affiliation> {
    affiliations
        .iter()
        .map(Affiliation::normalized)
        .filter(|a| *a != Affiliation::default())
        .collect()
}

/// The `affiliation=` and `ror=` parts of a text (each `(is_ror, value)`, in the order
/// written) as affiliations: each `affiliation=` begins one and a `ror=` is the ROR of the
/// one before it (or, written first, of the one after it). `said` is the whole text, for
/// the message when one affiliation is given two RORs.
pub(super) fn read_affiliations<'a>(
    parts: impl IntoIterator<Item = (bool, &'a str)>,
    said: &str,
) -> Result<Vec<Affiliation>, String> {
    let mut read: Vec<Affiliation> = Vec::new();
    // A ROR written before any name: the next `affiliation=` is its name.
    let mut awaiting_name = false;
    for (is_ror, value) in parts {
        let value = value.trim().to_string();
        match (is_ror, read.last_mut()) {
            (false, Some(last)) if awaiting_name => {
                last.name = value;
                awaiting_name = false;
            }
            (false, _) => read.push(Affiliation::named(value)),
            (true, Some(last)) if last.ror.is_some() => {
                let whose = match last.name.trim() {
                    "" => "one affiliation".to_string(),
                    name => format!("the affiliation '{name}'"),
                };
                return Err(format!(
                    "'{said}': two RORs for {whose}: write each affiliation=NAME before its own \
                     ror=ID"
                ));
            }
            (true, Some(last)) => last.ror = Some(value),
            (true, None) => {
                read.push(Affiliation {
                    name: String::new(),
                    ror: Some(value),
                });
                awaiting_name = true;
            }
        }
    }
    Ok(read)
}

/// The `ror=` and `affiliation=` parts written after `name` (of `parts`, each its label and
/// value in the order written; the others are left to the caller) as its own ROR and its
/// affiliations. An organisation (a name without a comma) may have its own: a `ror=`
/// written before any `affiliation=`. A person's is always an affiliation's
/// ([`read_affiliations`]). `said` is the whole text, for messages.
pub(super) fn read_ror_and_affiliations(
    name: &str,
    parts: &[LabelledPart<'_>],
    said: &str,
) -> Result<(Option<String>, Vec<Affiliation>), String> {
    let mut parts = parts
        .iter()
        .filter(|(label, _)| matches!(*label, "affiliation" | "ror"))
        .map(|(label, value)| (*label == "ror", value.as_str()))
        .peekable();
    let mut own = None;
    if !name.contains(',') {
        while let Some((true, value)) = parts.peek().copied() {
            if own.is_some() {
                return Err(format!(
                    "'{said}': two RORs for '{}' itself: an organisation has one (an \
                     affiliation's ROR goes after its affiliation=NAME)",
                    name.trim()
                ));
            }
            own = Some(value.trim().to_string());
            parts.next();
        }
    }
    Ok((own, read_affiliations(parts, said)?))
}

/// `affiliations` as they are written after a name: `affiliation=NAME` and, when it has
/// one, `ror=ID`, each in turn; what [`read_affiliations`] reads back.
pub(super) fn affiliation_parts(affiliations: &[Affiliation]) -> Vec<(&'static str, Option<&str>)> {
    let mut parts = Vec::new();
    for a in affiliations {
        // Written even when empty (`affiliation=; ror=...`), so that a ROR without its
        // name reads back as its own affiliation rather than another's ROR.
        parts.push(("affiliation", Some(a.name.as_str())));
        parts.push(("ror", a.ror.as_deref()));
    }
    parts
}

/// How a person's affiliations are keyed and stored, beside their name (a field flattened
/// into the person's): the first where a single one always was, the others listed.
pub(super) mod keyed {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Affiliation;

    #[derive(Default, Serialize, Deserialize)]
    struct Keyed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        affiliation: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        affiliation_ror: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        more_affiliations: Vec<Affiliation>,
    }

    pub fn serialize<S: Serializer>(
        affiliations: &[Affiliation],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let keyed = match affiliations.split_first() {
            None => Keyed::default(),
            // A ROR without a name is written as it was when there could be one affiliation
            // (no `affiliation`); an empty name without a ROR is written, so that the form's
            // empty row reads back as it was.
            Some((first, more)) => Keyed {
                affiliation: Some(first.name.clone())
                    .filter(|n| !n.is_empty() || first.ror.is_none()),
                affiliation_ror: first.ror.clone(),
                more_affiliations: more.to_vec(),
            },
        };
        keyed.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Affiliation>, D::Error> {
        let keyed = Keyed::deserialize(deserializer)?;
        let first =
            (keyed.affiliation.is_some() || keyed.affiliation_ror.is_some()).then(|| Affiliation {
                name: keyed.affiliation.unwrap_or_default(),
                ror: keyed.affiliation_ror,
            });
        Ok(first.into_iter().chain(keyed.more_affiliations).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<Affiliation>, String> {
        let parts = text.split(';').filter_map(|p| p.split_once('='));
        read_affiliations(parts.map(|(l, v)| (l.trim() == "ror", v)), text)
    }

    fn with_ror(name: &str, ror: &str) -> Affiliation {
        Affiliation {
            name: name.into(),
            ror: Some(ror.into()),
        }
    }

    #[test]
    fn each_affiliation_takes_the_ror_written_after_it() {
        assert_eq!(
            read("affiliation=Sorbonne; ror=02en5vm52; affiliation=Institut Curie").unwrap(),
            vec![
                with_ror("Sorbonne", "02en5vm52"),
                Affiliation::named("Institut Curie")
            ]
        );
        assert_eq!(
            read("affiliation=Sorbonne; affiliation=ETH; ror=05a28rw58").unwrap(),
            vec![Affiliation::named("Sorbonne"), with_ror("ETH", "05a28rw58")]
        );
    }

    #[test]
    fn a_ror_written_before_any_name_belongs_to_the_first_affiliation() {
        assert_eq!(
            read("ror=02en5vm52; affiliation=Sorbonne; affiliation=ETH").unwrap(),
            vec![with_ror("Sorbonne", "02en5vm52"), Affiliation::named("ETH")]
        );
        let alone = read("ror=02en5vm52").unwrap();
        assert_eq!(alone, vec![with_ror("", "02en5vm52")]);
        assert!(
            alone[0]
                .ror_problem()
                .unwrap()
                .contains("without the affiliation's name")
        );
    }

    fn read_of(name: &str, text: &str) -> Result<(Option<String>, Vec<Affiliation>), String> {
        let parts: Vec<(&str, String)> = (text.split(';').filter_map(|p| p.split_once('=')))
            .map(|(label, value)| (label.trim(), value.to_string()))
            .collect();
        read_ror_and_affiliations(name, &parts, text)
    }

    #[test]
    fn an_organisations_ror_before_any_affiliation_is_its_own_and_a_persons_is_not() {
        assert_eq!(
            read_of("CERN", "ror=01ggx4157").unwrap(),
            (Some("01ggx4157".into()), vec![])
        );
        assert_eq!(
            read_of("Soil Lab", "ror=01ggx4157; affiliation=ETH; ror=05a28rw58").unwrap(),
            (Some("01ggx4157".into()), vec![with_ror("ETH", "05a28rw58")])
        );
        assert_eq!(
            read_of("Soil Lab", "affiliation=ETH; ror=05a28rw58").unwrap(),
            (None, vec![with_ror("ETH", "05a28rw58")])
        );
        assert_eq!(
            read_of("Curie, Marie", "ror=02en5vm52; affiliation=Sorbonne").unwrap(),
            (None, vec![with_ror("Sorbonne", "02en5vm52")])
        );
        let why = read_of("CERN", "ror=01ggx4157; ror=05a28rw58").unwrap_err();
        assert!(why.contains("two RORs for 'CERN' itself"), "{why}");
    }

    #[test]
    fn two_rors_for_one_affiliation_are_refused_naming_it() {
        let why = read("affiliation=Sorbonne; ror=02en5vm52; ror=05a28rw58").unwrap_err();
        assert!(
            why.contains("two RORs for the affiliation 'Sorbonne': write each affiliation=NAME"),
            "{why}"
        );
        let why = read("ror=02en5vm52; ror=05a28rw58").unwrap_err();
        assert!(why.contains("two RORs for one affiliation"), "{why}");
    }

    #[test]
    fn written_parts_read_back_as_the_same_affiliations() {
        let list = vec![
            with_ror("Sorbonne", "https://ror.org/02en5vm52"),
            Affiliation::named("Institut Curie"),
            with_ror("", "05a28rw58"),
        ];
        let text: Vec<String> = affiliation_parts(&list)
            .into_iter()
            .filter_map(|(label, value)| value.map(|v| format!("{label}={v}")))
            .collect();
        assert_eq!(read(&text.join("; ")).unwrap(), list);
    }

    #[test]
    fn a_ror_is_normalised_to_its_address_and_blank_affiliations_are_dropped() {
        let list = [
            with_ror(" Sorbonne ", "02EN5VM52"),
            Affiliation::named("  "),
            with_ror("ETH", " "),
        ];
        assert_eq!(
            normalized_affiliations(&list),
            vec![
                with_ror("Sorbonne", "https://ror.org/02en5vm52"),
                Affiliation::named("ETH")
            ]
        );
        assert!(
            with_ror("ETH", "05a28rw59")
                .ror_problem()
                .unwrap()
                .contains("mistyped")
        );
        assert_eq!(with_ror("ETH", "05a28rw58").ror_problem(), None);
    }

    /// The store keeps what the window holds, empty rows too: each list of affiliations
    /// reads back from its JSON as it was written.
    #[test]
    fn any_list_of_affiliations_reads_back_from_its_json_unchanged() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Person {
            #[serde(flatten, with = "keyed")]
            affiliations: Vec<Affiliation>,
        }
        let lists = [
            vec![],
            vec![Affiliation::named("")],
            vec![with_ror("", "02en5vm52")],
            vec![Affiliation::named(""), Affiliation::named("ETH")],
            vec![
                with_ror("Sorbonne", "x"),
                with_ror("", "y"),
                Affiliation::named(""),
            ],
        ];
        for affiliations in lists {
            let person = Person { affiliations };
            let json = serde_json::to_string(&person).unwrap();
            let back: Person = serde_json::from_str(&json).unwrap();
            assert_eq!(back, person, "{json}");
        }
        let json = serde_json::to_string(&Person {
            affiliations: vec![with_ror("Sorbonne", "x"), Affiliation::named("ETH")],
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"affiliation":"Sorbonne","affiliation_ror":"x","more_affiliations":[{"name":"ETH"}]}"#
        );
    }

    #[test]
    fn problem_fields_name_where_the_keyed_form_holds_each_part() {
        assert_eq!(
            affiliation_field("creators[1]", 0, false),
            "creators[1].affiliation"
        );
        assert_eq!(
            affiliation_field("creators[1]", 0, true),
            "creators[1].affiliation_ror"
        );
        assert_eq!(
            affiliation_field("creators[1]", 2, true),
            "creators[1].more_affiliations[1].ror"
        );
    }
}
