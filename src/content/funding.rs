//! Funding: who paid for the work behind a dataset, and under which award (grant). Funders
//! ask for it (a grant's outputs are found by it), so the targets send it as DataCite's
//! `fundingReferences` and InvenioRDM's `funding`. A funder is given by name, as both take
//! it without a vocabulary, and optionally by its ROR or Crossref Funder ID, which DataCite
//! takes as it is and InvenioRDM looks up in its own funders (and the award, by its number,
//! in its awards; see `targets/invenio/vocabularies.rs`); an award by its number and title.
//! A `.zenodo.json`'s grants, which give only the funder's id, are read as funding where
//! Lodge knows that funder by name ([`Funding::of_zenodo_grant`]). Like all metadata it
//! takes part in the content key; a dataset with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::labelled::{join_labelled, line_break_problem, read_labelled, unread_line_problem};
use super::related::bare_doi;
use super::ror::{RorProblem, ror_address};

/// How funding is written on the command line and in the window.
pub const EXAMPLE: &str = "European Commission; award=101000001; award-title=Soil carbon";

/// One funder of the work, and the award it made, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Funding {
    /// The funder's name: `European Commission`, `National Science Foundation`.
    pub funder: String,
    /// The funder's identifier, a ROR (`https://ror.org/00k4n6c32`) or a Crossref Funder ID
    /// (`https://doi.org/10.13039/501100000780`), each keyed as that address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub funder_id: Option<String>,
    /// The award's number as the funder gives it: `101000001`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub award_number: Option<String>,
    /// The award's title: the project's name in the funder's books.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub award_title: Option<String>,
}

fn clean(s: &str) -> String {
    s.trim().nfc().collect()
}

fn clean_opt(s: &Option<String>) -> Option<String> {
    s.as_deref().map(clean).filter(|s| !s.is_empty())
}

/// DataCite's types of the funder identifiers Lodge recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunderScheme {
    Ror,
    CrossrefFunderId,
}

impl FunderScheme {
    /// DataCite's `funderIdentifierType`.
    pub fn datacite(self) -> &'static str {
        match self {
            FunderScheme::Ror => "ROR",
            FunderScheme::CrossrefFunderId => "Crossref Funder ID",
        }
    }
}

/// `id` as its keyed address, and its scheme: a ROR id (its check digits matching, bare or
/// as a ror.org address, any case) or a DOI under `10.13039/` (in any spelling of a DOI);
/// `None` when it is neither.
pub fn funder_identifier(id: &str) -> Option<(String, FunderScheme)> {
    let id = id.trim();
    if let Some(doi) = bare_doi(id)
        && doi.starts_with("10.13039/")
    {
        // In NFC again: lower case can take a letter out of it.
        let doi: String = doi.to_lowercase().nfc().collect();
        return Some((
            format!("https://doi.org/{doi}"),
            FunderScheme::CrossrefFunderId,
        ));
    }
    ror_address(id)
        .ok()
        .map(|address| (address, FunderScheme::Ror))
}

/// Funders Lodge knows by name, by their Crossref Funder ID's address: those whose grants a
/// `.zenodo.json` names most, where the grant gives only the funder's id
/// ([`Funding::of_zenodo_grant`]).
const FUNDERS_BY_ID: &[(&str, &str)] = &[
    (
        "https://doi.org/10.13039/501100000780",
        "European Commission",
    ),
    (
        "https://doi.org/10.13039/501100000781",
        "European Research Council",
    ),
    (
        "https://doi.org/10.13039/100000001",
        "National Science Foundation",
    ),
    (
        "https://doi.org/10.13039/100000002",
        "National Institutes of Health",
    ),
    ("https://doi.org/10.13039/100010269", "Wellcome Trust"),
    (
        "https://doi.org/10.13039/501100001659",
        "Deutsche Forschungsgemeinschaft",
    ),
    (
        "https://doi.org/10.13039/501100001711",
        "Swiss National Science Foundation",
    ),
];

/// The European Commission's Crossref Funder ID: Zenodo's funder of a grant given by its
/// number alone.
const EUROPEAN_COMMISSION: &str = "10.13039/501100000780";

impl Funding {
    /// A grant as Zenodo's legacy deposit fields give it (a `.zenodo.json`'s `grants`): an
    /// EC grant by its number alone (`777541`), another funder's as `FUNDER_ID::NUMBER`
    /// (`10.13039/100000001::2045678`). `None` when its funder is not one Lodge knows by
    /// name (funding needs the funder's name) or the id names no award.
    pub fn of_zenodo_grant(id: &str) -> Option<Funding> {
        let id = id.trim();
        let (funder_id, number) = match id.split_once("::") {
            Some((funder_id, number)) => (funder_id, number.trim()),
            // The EC's grant numbers are digits; other text alone names no award.
            None if id.bytes().all(|b| b.is_ascii_digit()) => (EUROPEAN_COMMISSION, id),
            None => return None,
        };
        let (address, _) = funder_identifier(funder_id)?;
        let funder = FUNDERS_BY_ID.iter().find(|(id, _)| *id == address)?.1;
        (!number.is_empty()).then(|| Funding {
            funder: funder.to_string(),
            funder_id: Some(address),
            award_number: Some(number.to_string()),
            award_title: None,
        })
    }

    /// `"European Commission; award=101000001; award-title=Soil carbon"`: the funder's name,
    /// then, after semicolons, the award's number and title, each optional. Whether the
    /// result can be sent is [`Funding::problem`]'s to say; only a text that cannot be read
    /// is refused here.
    pub fn parse(text: &str) -> Result<Funding, String> {
        let labels = [
            ("funder-id", "ROR"),
            ("award", "NUMBER"),
            ("award-title", "TITLE"),
        ];
        let (funder, [funder_id, award_number, award_title]) =
            read_labelled(text, labels, EXAMPLE)?;
        let funding = Funding {
            funder,
            funder_id,
            award_number,
            award_title,
        };
        Ok(funding.normalized())
    }

    /// The keyed form: text trimmed and in Unicode NFC, an empty award part left out.
    pub fn normalized(&self) -> Funding {
        Funding {
            funder: clean(&self.funder),
            // A known identifier as its address; another kept as written, for `problem`.
            funder_id: clean_opt(&self.funder_id)
                .map(|id| funder_identifier(&id).map_or(id, |(address, _)| address)),
            award_number: clean_opt(&self.award_number),
            award_title: clean_opt(&self.award_title),
        }
    }

    /// Nothing in it at all (a blank line in the window).
    pub fn is_blank(&self) -> bool {
        self.normalized() == Funding::default()
    }

    /// What is wrong with it, worded for the person who fixes it; `None` when it can be
    /// sent. (Whether a repository takes an award with only its number or only its title
    /// is the target's to say: DataCite does, InvenioRDM does not.)
    pub fn problem(&self) -> Option<String> {
        let f = self.normalized();
        let said = f.describe();
        if let Some(why) = unread_line_problem(&f.funder, &said, Funding::parse) {
            return Some(why);
        }
        if !f.funder.chars().any(char::is_alphanumeric) {
            return Some(format!(
                "'{said}' names no funder: begin with the funder's name"
            ));
        }
        if let Some(id) = &f.funder_id
            && funder_identifier(id).is_none()
        {
            if ror_address(id) == Err(RorProblem::CheckDigits) {
                return Some(RorProblem::CheckDigits.explain(id));
            }
            return Some(format!(
                "'{id}' is neither a ROR (https://ror.org/00k4n6c32) nor a Crossref Funder ID \
                 (10.13039/501100000780): give one of them as funder-id=, or leave it out"
            ));
        }
        let parts = [
            Some(&f.funder),
            f.award_number.as_ref(),
            f.award_title.as_ref(),
        ];
        line_break_problem(&said, &parts)
    }

    /// The entry as written without its funder-id, when that id is all that is wrong with
    /// it (an id that is neither a ROR nor a Crossref Funder ID): the person's own funding,
    /// given again, deposits. `None` otherwise.
    pub fn without_bad_funder_id(&self) -> Option<String> {
        let f = self.normalized();
        if funder_identifier(f.funder_id.as_deref()?).is_some() {
            return None;
        }
        let without = Funding {
            funder_id: None,
            ..f
        };
        without.problem().is_none().then(|| without.describe())
    }

    /// Whether it names an award by only one of its number and title.
    pub fn award_is_partial(&self) -> bool {
        let f = self.normalized();
        f.award_number.is_some() != f.award_title.is_some()
    }

    /// As it is written: `European Commission; award=101000001; award-title=Soil carbon`.
    pub fn describe(&self) -> String {
        join_labelled(
            &self.funder,
            &[
                ("funder-id", self.funder_id.as_deref()),
                ("award", self.award_number.as_deref()),
                ("award-title", self.award_title.as_deref()),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn funding(funder: &str, number: Option<&str>, title: Option<&str>) -> Funding {
        Funding {
            funder: funder.into(),
            funder_id: None,
            award_number: number.map(Into::into),
            award_title: title.map(Into::into),
        }
    }

    #[test]
    fn a_zenodo_grant_is_funding_when_lodge_knows_its_funder_by_name() {
        let ec = Funding::of_zenodo_grant(" 777541 ").unwrap();
        assert_eq!(
            ec.describe(),
            "European Commission; funder-id=https://doi.org/10.13039/501100000780; award=777541"
        );
        let nsf = Funding::of_zenodo_grant("https://doi.org/10.13039/100000001::2045678");
        assert_eq!(nsf.unwrap().funder, "National Science Foundation");
        // A funder Lodge cannot name, an id that is no funder's, and no number.
        assert_eq!(
            Funding::of_zenodo_grant("10.13039/501100004963::12345"),
            None
        );
        assert_eq!(Funding::of_zenodo_grant("NSF::2045678"), None);
        assert_eq!(Funding::of_zenodo_grant("10.13039/100000001::"), None);
        assert_eq!(Funding::of_zenodo_grant("10.13039/100000001"), None);
    }

    #[test]
    fn funding_is_the_funder_then_the_awards_number_and_title() {
        let f = Funding::parse(" European Commission ;award= 101000001 ; award-title=Soil carbon ")
            .unwrap();
        assert_eq!(
            f,
            funding(
                "European Commission",
                Some("101000001"),
                Some("Soil carbon")
            )
        );
        assert_eq!(
            f.describe(),
            "European Commission; award=101000001; award-title=Soil carbon"
        );
        assert_eq!(
            Funding::parse(&f.describe()).unwrap(),
            f,
            "read back as written"
        );
        let plain = Funding::parse("Wellcome Trust").unwrap();
        assert_eq!(plain, funding("Wellcome Trust", None, None));
        assert_eq!(plain.describe(), "Wellcome Trust");
        // Either order; an empty part is left out.
        assert_eq!(
            Funding::parse("NSF; award-title=Cores; award=  ;").unwrap(),
            funding("NSF", None, Some("Cores"))
        );
    }

    #[test]
    fn a_funder_id_is_a_ror_or_a_crossref_funder_id_keyed_as_its_address() {
        for (given, keyed, scheme) in [
            (
                "https://ror.org/00k4n6c32",
                "https://ror.org/00k4n6c32",
                FunderScheme::Ror,
            ),
            ("00K4N6C32", "https://ror.org/00k4n6c32", FunderScheme::Ror),
            (
                "ror.org/021nxhr62",
                "https://ror.org/021nxhr62",
                FunderScheme::Ror,
            ),
            (
                "10.13039/501100000780",
                "https://doi.org/10.13039/501100000780",
                FunderScheme::CrossrefFunderId,
            ),
            (
                "https://doi.org/10.13039/100000001",
                "https://doi.org/10.13039/100000001",
                FunderScheme::CrossrefFunderId,
            ),
        ] {
            assert_eq!(
                funder_identifier(given),
                Some((keyed.to_string(), scheme)),
                "{given}"
            );
            let f = Funding::parse(&format!("EC; funder-id={given}")).unwrap();
            assert_eq!(f.funder_id.as_deref(), Some(keyed));
            assert_eq!(f.problem(), None);
            assert_eq!(Funding::parse(&f.describe()).unwrap(), f, "read back");
        }
        let typo = Funding::parse("EC; funder-id=00k4n6c33").unwrap();
        let why = typo.problem().unwrap();
        assert!(why.contains("last two digits do not match"), "{why}");
        for neither in ["10.1234/abc", "https://ror.org/abc", "1k4n6c32x", "EC"] {
            assert_eq!(funder_identifier(neither), None, "{neither}");
            let f = Funding::parse(&format!("EC; funder-id={neither}")).unwrap();
            let why = f.problem().unwrap();
            assert!(why.contains("is neither a ROR"), "{neither}: {why}");
        }
    }

    #[test]
    fn a_part_that_is_not_award_or_award_title_is_refused_naming_it() {
        let why = Funding::parse("NSF; 2045678").unwrap_err();
        assert!(
            why.contains("'2045678' should be funder-id=ROR, award=NUMBER or award-title=TITLE"),
            "{why}"
        );
        assert!(why.contains(EXAMPLE), "{why}");
        let why = Funding::parse("NSF; grant=2045678").unwrap_err();
        assert!(why.contains("unknown part 'grant'"), "{why}");
    }

    #[test]
    fn funding_without_a_funder_or_over_two_lines_is_a_problem() {
        let why = funding("", Some("101000001"), None).problem().unwrap();
        assert!(why.contains("names no funder"), "{why}");
        assert!(funding(" ; ", None, None).problem().is_some());
        let why = funding("NSF", None, Some("Soil\ncores")).problem().unwrap();
        assert!(why.contains("line break"), "{why}");
        assert_eq!(funding("NSF", Some("1"), None).problem(), None);
        // As the window keeps a line it could not read.
        let why = funding("NSF; 2045678", None, None).problem().unwrap();
        assert!(why.contains("'2045678' should be funder-id=ROR"), "{why}");
    }

    #[test]
    fn an_award_with_only_its_number_or_only_its_title_is_partial() {
        assert!(funding("NSF", Some("1"), None).award_is_partial());
        assert!(funding("NSF", None, Some("Cores")).award_is_partial());
        assert!(funding("NSF", Some(" "), Some("Cores")).award_is_partial());
        assert!(!funding("NSF", Some("1"), Some("Cores")).award_is_partial());
        assert!(!funding("NSF", None, None).award_is_partial());
    }

    #[test]
    fn normalising_trims_and_composes_and_drops_empty_award_parts() {
        let f = funding(
            " Agence nationale de la recherche\u{301} ",
            Some(""),
            Some(" T "),
        );
        let n = f.normalized();
        assert_eq!(n.funder, "Agence nationale de la recherch\u{e9}");
        assert_eq!(n.award_number, None);
        assert_eq!(n.award_title.as_deref(), Some("T"));
        assert_eq!(n.normalized(), n, "normalising twice changes nothing");
        assert!(funding(" ", Some(""), None).is_blank());
    }
}
