//! Contributors: the people and organisations who had a part in a dataset other than its
//! authorship (the contact person, who collected the data, who curates it), each with the
//! role DataCite names. The targets send them as DataCite's `contributors` and InvenioRDM's
//! `contributors` (the role by its vocabulary's id). Like all metadata they take part in the
//! content key; a dataset with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::Creator;
use super::affiliation::{Affiliation, affiliation_parts, read_ror_and_affiliations};
use super::labelled::{
    join_labelled, line_break_problem, read_labelled_parts, unread_line_problem,
};

/// DataCite's contributor types (schema 4.3, which InvenioRDM's contributor roles follow,
/// its ids the same names in lower case), as DataCite spells them.
pub const CONTRIBUTOR_ROLES: &[&str] = &[
    "ContactPerson",
    "DataCollector",
    "DataCurator",
    "DataManager",
    "Distributor",
    "Editor",
    "HostingInstitution",
    "Producer",
    "ProjectLeader",
    "ProjectManager",
    "ProjectMember",
    "RegistrationAgency",
    "RegistrationAuthority",
    "RelatedPerson",
    "Researcher",
    "ResearchGroup",
    "RightsHolder",
    "Sponsor",
    "Supervisor",
    "WorkPackageLeader",
    "Other",
];

/// How a contributor is written on the command line and in the window.
pub const EXAMPLE: &str = "Curie, Marie; role=ContactPerson";

/// One contributor: a person (`"Family, Given"`) or an organisation, and their role.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contributor {
    /// `"Family, Given"` for a person, or an organisation's name.
    pub name: String,
    /// What they did: one of [`CONTRIBUTOR_ROLES`].
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orcid: Option<String>,
    /// An organisation's own ROR, keyed as a creator's is (see [`Creator::ror`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ror: Option<String>,
    /// The organisations they belong to, keyed as a creator's are (see
    /// [`Creator::affiliations`]).
    #[serde(flatten, with = "super::affiliation::keyed")]
    pub affiliations: Vec<Affiliation>,
    /// An organisation whose name has a comma, keyed as a creator's mark is (see
    /// [`Creator::organisation`]): only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub organisation: bool,
}

impl Contributor {
    /// `"Curie, Marie; role=ContactPerson; orcid=...; affiliation=...; ror=..."`: the name,
    /// then the role and, optionally, an ORCID iD, an organisation's own ROR and
    /// affiliations (each `affiliation=NAME` followed by its `ror=ID`), as `--creator` takes
    /// them (see [`Creator::parse`]).
    /// Whether the result can be sent is [`Contributor::problem`]'s to say; only a text
    /// that cannot be read is refused here.
    pub fn parse(text: &str) -> Result<Contributor, String> {
        let labels = [
            ("role", "..."),
            ("orcid", "..."),
            ("affiliation", "..."),
            ("ror", "..."),
            ("type", "organisation"),
        ];
        let (name, parts) = read_labelled_parts(text, labels, EXAMPLE)?;
        // Read as a creator's type is, with the same refusal of any other.
        let organisation = match parts.iter().rev().find(|(label, _)| *label == "type") {
            Some((_, value)) => super::metadata::is_organisation_type(value, text)?,
            None => false,
        };
        // The last role and ORCID iD given win, as a repeated part of any other text does.
        let last = |wanted: &str| {
            let given = parts.iter().rev().find(|(label, _)| *label == wanted);
            given.map(|(_, value)| value.clone())
        };
        let (ror, affiliations) = read_ror_and_affiliations(&name, &parts, text)?;
        let contributor = Contributor {
            name,
            role: last("role").unwrap_or_default(),
            orcid: last("orcid"),
            ror,
            affiliations,
            organisation,
        };
        Ok(contributor.normalized())
    }

    /// The person or organisation, as a creator is written.
    /// `person`, credited in `role`.
    pub fn in_role(person: Creator, role: String) -> Contributor {
        Contributor {
            name: person.name,
            role,
            orcid: person.orcid,
            ror: person.ror,
            affiliations: person.affiliations,
            organisation: person.organisation,
        }
    }

    pub fn person(&self) -> Creator {
        Creator {
            name: self.name.clone(),
            orcid: self.orcid.clone(),
            ror: self.ror.clone(),
            affiliations: self.affiliations.clone(),
            organisation: self.organisation,
        }
    }

    /// The keyed form: as a creator's (trimmed, NFC, a bare ORCID), the role as DataCite
    /// spells it when it is one, in any case.
    pub fn normalized(&self) -> Contributor {
        let person = self.person().normalized();
        let role: String = self.role.trim().nfc().collect();
        let role = CONTRIBUTOR_ROLES
            .iter()
            .find(|r| r.eq_ignore_ascii_case(&role))
            .map_or(role, |r| r.to_string());
        Contributor::in_role(person, role)
    }

    /// Nothing in it at all (a blank line in the window).
    pub fn is_blank(&self) -> bool {
        self.normalized() == Contributor::default()
    }

    /// What is wrong with it, worded for the person who fixes it; `None` when it can be
    /// sent.
    pub fn problem(&self) -> Option<String> {
        let c = self.normalized();
        let said = c.describe();
        if let Some(why) = unread_line_problem(&c.name, &said, Contributor::parse) {
            return Some(why);
        }
        if !c.name.chars().any(char::is_alphanumeric) {
            return Some(format!(
                "'{said}' names nobody: begin with \"Family, Given\" or an organisation's name"
            ));
        }
        if c.role.is_empty() {
            return Some(format!(
                "'{said}' has no role: add role=ContactPerson, DataCollector, DataCurator, \
                 Researcher or another of DataCite's contributor types"
            ));
        }
        if !CONTRIBUTOR_ROLES.contains(&c.role.as_str()) {
            let hint =
                match crate::wording::closest(&c.role, CONTRIBUTOR_ROLES.iter().copied(), 0.7) {
                    Some(close) => format!("did you mean {close}?"),
                    None => "for example ContactPerson, DataCollector, DataCurator, Researcher, \
                         Supervisor or Other"
                        .to_string(),
                };
            return Some(format!(
                "'{}' is not a DataCite contributor type: {hint}",
                c.role
            ));
        }
        let person = c.person();
        if let Some(why) = person.orcid_problem() {
            return Some(why);
        }
        if person.organisation && person.orcid.is_some() {
            return Some(format!(
                "'{said}': an ORCID iD identifies a person, but this is marked an organisation: \
                 leave the ORCID iD out, or write it as a person's \"Family, Given\" (without \
                 type=organisation)"
            ));
        }
        if let Some(why) = person.ror_problem() {
            return Some(why);
        }
        if let Some(why) = person.affiliation_ror_problem() {
            return Some(why);
        }
        let mut parts = vec![Some(&c.name)];
        parts.extend(c.affiliations.iter().map(|a| Some(&a.name)));
        line_break_problem(&said, &parts)
    }

    /// As it is written: `Curie, Marie; role=ContactPerson; orcid=...; affiliation=...;
    /// ror=...`.
    /// Its entry as a flag gives it, with the contributor type DataCite most likely meant
    /// in place of a mistyped one (`role=DataColector` → `role=DataCollector`); `None` when
    /// its type is not mistyped.
    pub fn with_role_corrected(&self) -> Option<String> {
        let c = self.normalized();
        if c.role.is_empty() || CONTRIBUTOR_ROLES.contains(&c.role.as_str()) {
            return None;
        }
        let meant = crate::wording::closest(&c.role, CONTRIBUTOR_ROLES.iter().copied(), 0.7)?;
        Some(
            Contributor {
                role: meant.to_string(),
                ..c
            }
            .describe(),
        )
    }

    pub fn describe(&self) -> String {
        let role = Some(self.role.as_str()).filter(|r| !r.trim().is_empty());
        let organisation = self
            .person()
            .is_marked_organisation()
            .then_some("organisation");
        let mut parts = vec![
            ("role", role),
            ("type", organisation),
            ("orcid", self.orcid.as_deref()),
            ("ror", self.ror.as_deref()),
        ];
        parts.extend(affiliation_parts(&self.affiliations));
        join_labelled(&self.name, &parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contributor(name: &str, role: &str) -> Contributor {
        Contributor {
            name: name.into(),
            role: role.into(),
            ..Contributor::default()
        }
    }

    /// An organisation whose name has a comma says so as a creator does, reads back from
    /// what it is written as, and is sent as an organisation; with an ORCID iD it is a
    /// problem.
    #[test]
    fn a_contributor_organisation_whose_name_has_a_comma_is_marked_one() {
        let c = Contributor::parse(
            "University of California, Berkeley; role=HostingInstitution; type=organization",
        )
        .unwrap();
        assert!(c.organisation);
        assert_eq!(
            c.describe(),
            "University of California, Berkeley; role=HostingInstitution; type=organisation"
        );
        assert_eq!(Contributor::parse(&c.describe()).unwrap(), c);
        assert_eq!(c.person().person_names(), None);
        assert_eq!(c.problem(), None);
        let err = Contributor::parse("Lab, X; role=Other; type=team").unwrap_err();
        assert!(err.contains("type=team is not a creator's type"), "{err}");
        let with_orcid = Contributor {
            orcid: Some("0000-0002-1825-0097".into()),
            ..c
        };
        assert!(
            with_orcid
                .problem()
                .is_some_and(|p| p.contains("an ORCID iD identifies a person")),
            "{:?}",
            with_orcid.problem()
        );
    }

    #[test]
    fn a_contributor_is_a_name_then_a_role_orcid_affiliation_and_its_ror() {
        let c = Contributor::parse(
            " Curie, Marie ;role=contactperson; orcid=https://orcid.org/0000-0002-1825-0097; \
             affiliation= Sorbonne ; ror=02EN5VM52",
        )
        .unwrap();
        assert_eq!(
            c,
            Contributor {
                name: "Curie, Marie".into(),
                role: "ContactPerson".into(),
                orcid: Some("0000-0002-1825-0097".into()),
                ror: None,
                affiliations: vec![Affiliation {
                    name: "Sorbonne".into(),
                    ror: Some("https://ror.org/02en5vm52".into()),
                }],
                organisation: false,
            }
        );
        assert_eq!(
            c.describe(),
            "Curie, Marie; role=ContactPerson; orcid=0000-0002-1825-0097; affiliation=Sorbonne; \
             ror=https://ror.org/02en5vm52"
        );
        assert_eq!(Contributor::parse(&c.describe()).unwrap(), c, "read back");
        assert_eq!(c.problem(), None);
        assert_eq!(
            Contributor::parse("Soil Lab; role=HostingInstitution").unwrap(),
            contributor("Soil Lab", "HostingInstitution")
        );
    }

    #[test]
    fn a_part_that_cannot_be_read_is_refused_naming_it() {
        let why = Contributor::parse("Curie, Marie; ContactPerson").unwrap_err();
        assert!(
            why.contains(
                "'ContactPerson' should be role=..., orcid=..., affiliation=..., ror=... or type=organisation"
            ),
            "{why}"
        );
        let why = Contributor::parse("Curie, Marie; job=curator").unwrap_err();
        assert!(why.contains("unknown part 'job'"), "{why}");
        // As the window keeps a line it could not read.
        let why = contributor("Curie, Marie; ContactPerson", "")
            .problem()
            .unwrap();
        assert!(why.contains("'ContactPerson' should be role="), "{why}");
    }

    #[test]
    fn a_contributor_without_a_name_or_role_or_with_an_unknown_role_is_a_problem() {
        let why = contributor(" , ", "Editor").problem().unwrap();
        assert!(why.contains("names nobody"), "{why}");
        let why = contributor("Curie, Marie", "").problem().unwrap();
        assert!(why.contains("has no role: add role=ContactPerson"), "{why}");
        let why = contributor("Curie, Marie", "DataColector")
            .problem()
            .unwrap();
        assert!(
            why.contains(
                "'DataColector' is not a DataCite contributor type: did you mean DataCollector?"
            ),
            "{why}"
        );
        let bad_orcid = Contributor {
            orcid: Some("0000-0002-1825-0098".into()),
            ..contributor("Curie, Marie", "Editor")
        };
        assert!(
            bad_orcid
                .problem()
                .unwrap()
                .contains("not a valid ORCID iD")
        );
        let two_lines = Contributor {
            affiliations: vec![Affiliation::named("Lab\nParis")],
            ..contributor("Curie, Marie", "Editor")
        };
        assert!(two_lines.problem().unwrap().contains("line break"));
        let mistyped_ror =
            Contributor::parse("Curie, Marie; role=Editor; affiliation=Sorbonne; ror=02en5vm53")
                .unwrap();
        let why = mistyped_ror.problem().unwrap();
        assert!(why.contains("'02en5vm53' is not a ROR id"), "{why}");
        let nameless_ror = Contributor::parse("Curie, Marie; role=Editor; ror=02en5vm52").unwrap();
        let why = nameless_ror.problem().unwrap();
        assert!(why.contains("without the affiliation's name"), "{why}");
    }

    #[test]
    fn a_contributor_may_have_several_affiliations_each_with_its_ror() {
        let text = "Curie, Marie; role=Editor; affiliation=Sorbonne; ror=02en5vm52; \
                    affiliation=ETH Zurich; ror=05a28rw59";
        let c = Contributor::parse(text).unwrap();
        assert_eq!(c.affiliations.len(), 2);
        assert_eq!(
            c.affiliations[0].ror.as_deref(),
            Some("https://ror.org/02en5vm52")
        );
        assert_eq!(Contributor::parse(&c.describe()).unwrap(), c);
        let why = c.problem().unwrap();
        assert!(why.contains("'05a28rw59' is not a ROR id"), "{why}");
        let two_lines = Contributor {
            affiliations: vec![Affiliation::named("Lab"), Affiliation::named("Lab\nParis")],
            ..contributor("Curie, Marie", "Editor")
        };
        assert!(two_lines.problem().unwrap().contains("line break"));
    }

    #[test]
    fn normalising_twice_changes_nothing_and_a_blank_one_is_blank() {
        let c = Contributor {
            orcid: Some(" orcid.org/0000-0002-1825-0097 ".into()),
            affiliations: vec![Affiliation::named(" ")],
            ..contributor(" Curie, Marie ", " datacurator ")
        };
        let n = c.normalized();
        assert_eq!(n.role, "DataCurator");
        assert_eq!(n.orcid.as_deref(), Some("0000-0002-1825-0097"));
        assert_eq!(n.affiliations, []);
        assert_eq!(n.normalized(), n);
        assert!(contributor(" ", " ").is_blank());
    }
}
