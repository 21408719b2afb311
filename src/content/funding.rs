//! Funding: who paid for the work behind a dataset, and under which award (grant). Funders
//! ask for it (a grant's outputs are found by it), so the targets send it as DataCite's
//! `fundingReferences` and InvenioRDM's `funding`. A funder is given by name, as both take
//! it without a vocabulary; an award by its number and title. Like all metadata it takes
//! part in the content key; a dataset with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::labelled::{join_labelled, split_labelled};

/// How funding is written on the command line and in the window.
pub const EXAMPLE: &str = "European Commission; award=101000001; award-title=Soil carbon";

/// One funder of the work, and the award it made, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Funding {
    /// The funder's name: `European Commission`, `National Science Foundation`.
    pub funder: String,
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

impl Funding {
    /// `"European Commission; award=101000001; award-title=Soil carbon"`: the funder's name,
    /// then, after semicolons, the award's number and title, each optional. Whether the
    /// result can be sent is [`Funding::problem`]'s to say; only a text that cannot be read
    /// is refused here.
    pub fn parse(text: &str) -> Result<Funding, String> {
        let (funder, parts) = split_labelled(text).map_err(|part| {
            format!(
                "'{text}': '{part}' should be award=NUMBER or award-title=TITLE, e.g. \
                 \"{EXAMPLE}\""
            )
        })?;
        let mut funding = Funding {
            funder,
            ..Funding::default()
        };
        for (label, value) in parts {
            match label.as_str() {
                "award" => funding.award_number = Some(value),
                "award-title" => funding.award_title = Some(value),
                other => {
                    return Err(format!(
                        "'{text}': unknown part '{other}' (use award=NUMBER and \
                         award-title=TITLE after the funder's name)"
                    ));
                }
            }
        }
        Ok(funding.normalized())
    }

    /// The keyed form: text trimmed and in Unicode NFC, an empty award part left out.
    pub fn normalized(&self) -> Funding {
        Funding {
            funder: clean(&self.funder),
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
        if !f.funder.chars().any(char::is_alphanumeric) {
            return Some(format!(
                "'{}' names no funder: begin with the funder's name",
                f.describe()
            ));
        }
        // A line of the window that could not be read is kept whole as the funder's name,
        // to be named here rather than dropped.
        if f.funder.contains(';') {
            return Some(match Funding::parse(&f.describe()) {
                Err(why) => why,
                Ok(_) => format!("'{}': a funder's name cannot hold ';'", f.describe()),
            });
        }
        let parts = [
            Some(&f.funder),
            f.award_number.as_ref(),
            f.award_title.as_ref(),
        ];
        if parts
            .into_iter()
            .flatten()
            .any(|p| p.chars().any(char::is_control))
        {
            return Some(format!(
                "'{}' has a line break or another control character: write it on one line",
                f.describe().escape_debug()
            ));
        }
        None
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
            award_number: number.map(Into::into),
            award_title: title.map(Into::into),
        }
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
    fn a_part_that_is_not_award_or_award_title_is_refused_naming_it() {
        let why = Funding::parse("NSF; 2045678").unwrap_err();
        assert!(
            why.contains("'2045678' should be award=NUMBER or award-title=TITLE"),
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
        assert!(why.contains("'2045678' should be award=NUMBER"), "{why}");
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
