//! A dataset's funding as InvenioRDM takes it, linked to the site's funders and awards
//! vocabularies where they know it.
//!
//! InvenioRDM (Zenodo too) keeps funders (from ROR) and awards (from OpenAIRE) as
//! vocabularies, and a record that names a funder or an award by its vocabulary id is linked
//! to it: Zenodo then reports the record to the funder (through OpenAIRE) as an output of
//! the grant. So before a draft is made, a funder given with its ROR or Crossref Funder ID is
//! looked up in the site's funders, and an award of such a funder in its awards by number.
//! What the site does not know goes as InvenioRDM takes it without the vocabularies: the
//! funder by name, the award as a custom one with its number and title. An award with only
//! its number, not in the site's awards, cannot be sent at all: the deposit is refused
//! before anything is made, saying what to add.
//!
//! A creator's (or contributor's) affiliation given with its ROR is linked the same way, to
//! the site's affiliations vocabulary (ROR's organisations, by their ROR id); one the site
//! does not list goes by its name.
//!
//! The lookups change what is sent, never the content key: the same dataset keys the same
//! whether or not a site knows its funder.

use std::collections::HashMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::InvenioTarget;
use crate::content::{
    Affiliation, Creator, FieldProblem, FunderScheme, Funding, Metadata, funder_identifier,
    ror_address, ror_id,
};
use crate::targets::Failure;

/// What a site's vocabularies said of one funder or award (and the site of a community),
/// kept for the target's lifetime (a batch's datasets tend to share their funding).
#[derive(Default)]
pub(super) struct VocabularyAnswers {
    /// A funder's keyed identifier (its address) -> its id in the funders vocabulary.
    funders: HashMap<String, Option<String>>,
    /// (funder id, award number) -> the award's id in the awards vocabulary.
    awards: HashMap<(String, String), Option<String>>,
    /// A community's short name -> its id on the site.
    pub(super) communities: HashMap<String, Option<String>>,
    /// An affiliation's ROR (its address) -> its id in the affiliations vocabulary.
    affiliations: HashMap<String, Option<String>>,
}

/// How an award given by its number alone failed to be found, for the message.
pub(super) enum Unfound {
    /// No funder id was given, so the site's awards could not be searched.
    NoFunderId,
    /// The funder's id is not in the site's funders.
    FunderNotListed(String),
    /// The funder is listed, the award number is not among its awards.
    AwardNotListed,
}

impl InvenioTarget {
    /// `funding` as the draft's `funding` list, each funder and award by its vocabulary id
    /// where the site has it; a [`Failure::Rejected`] naming every award that can be sent
    /// neither way.
    pub(super) async fn linked_funding(&self, funding: &[Funding]) -> Result<Value, Failure> {
        let mut entries = Vec::with_capacity(funding.len());
        let mut problems = Vec::new();
        for (i, f) in funding.iter().enumerate() {
            let given_id = f.funder_id.as_deref().and_then(funder_identifier);
            let funder = match &given_id {
                Some((address, scheme)) => self.funder_id(address, *scheme).await?,
                None => None,
            };
            let award = match (&funder, &f.award_number) {
                (Some(funder), Some(number)) => self.award_id(funder, number).await?,
                _ => None,
            };
            let mut entry = match &funder {
                Some(id) => json!({"funder": {"id": id}}),
                None => json!({"funder": {"name": f.funder}}),
            };
            match (award, &f.award_number, &f.award_title) {
                (Some(id), _, _) => entry["award"] = json!({"id": id}),
                (None, Some(number), Some(title)) => {
                    entry["award"] = json!({"number": number, "title": {"en": title}});
                }
                (None, None, None) => {}
                (None, _, _) => {
                    let why = match (&given_id, &funder) {
                        (None, _) => Unfound::NoFunderId,
                        (Some((address, _)), None) => Unfound::FunderNotListed(address.clone()),
                        (Some(_), Some(_)) => Unfound::AwardNotListed,
                    };
                    problems.push(self.partial_award_problem(i, f, why));
                }
            }
            entries.push(entry);
        }
        match problems.is_empty() {
            true => Ok(Value::Array(entries)),
            false => Err(Failure::Rejected {
                status: 0,
                problems,
            }),
        }
    }

    /// Why award `f` (the `i`th funding), given by only its number or only its title, cannot
    /// be sent, with the person's own funding completed as the example to follow.
    pub(super) fn partial_award_problem(
        &self,
        i: usize,
        f: &Funding,
        why: Unfound,
    ) -> FieldProblem {
        let site = self.site_name();
        let said = f.describe();
        // Their own funding, completed or with the award left out, as the example to follow:
        // the line alone, as `--funding` and the window's Funding field both take it.
        let written = |f: Funding| format!("'{}'", f.describe());
        let alone = written(Funding {
            award_number: None,
            award_title: None,
            ..f.clone()
        });
        let message = match &f.award_number {
            None => {
                let numbered = written(Funding {
                    award_number: Some("NUMBER".into()),
                    ..f.clone()
                });
                format!(
                    "'{said}' gives the award a title only, and {site} takes an award with its \
                     number and its title: add its number ({numbered}), or give the funder \
                     alone ({alone})"
                )
            }
            Some(number) => {
                let titled = written(Funding {
                    award_title: Some("TITLE".into()),
                    ..f.clone()
                });
                let unfound = match why {
                    Unfound::NoFunderId => format!(
                        "{site} takes an award it does not list only with its number and \
                         its title: add its title ({titled}), or the funder's ROR or Crossref \
                         Funder ID (funder-id=...) for Lodge to find award {number} in \
                         {site}'s list of awards,"
                    ),
                    Unfound::FunderNotListed(id) => format!(
                        "{site}'s list of funders has no {id}, so the award cannot be found \
                         in its list of awards: add its title ({titled}),"
                    ),
                    Unfound::AwardNotListed => format!(
                        "{site}'s list of awards has no award {number} of this funder: \
                         check the number, or add its title ({titled}),"
                    ),
                };
                format!(
                    "'{said}' gives the award a number only, and {unfound} or give the funder alone ({alone})"
                )
            }
        };
        FieldProblem {
            field: format!("funding[{i}]"),
            message,
        }
    }

    /// The id in the site's funders of the funder with keyed identifier `address`, if it
    /// has one: a ROR is the id InvenioRDM gives a funder (asked for directly); a Crossref
    /// Funder ID is one of a funder's identifiers (searched for, and matched exactly).
    async fn funder_id(
        &self,
        address: &str,
        scheme: FunderScheme,
    ) -> Result<Option<String>, Failure> {
        if let Some(known) = self.answered(|v| v.funders.get(address).cloned()) {
            return Ok(known);
        }
        let found = match scheme {
            FunderScheme::Ror => {
                let bare = address.rsplit('/').next().unwrap_or(address);
                let url = self.url(&["api", "funders", bare]);
                self.vocabulary_entry(url)
                    .await?
                    .filter(|funder| names_funder(funder, address))
                    .and_then(|funder| funder["id"].as_str().map(str::to_string))
            }
            FunderScheme::CrossrefFunderId => {
                let doi = address.trim_start_matches("https://doi.org/");
                let query = format!("identifiers.identifier:{}", phrase(doi));
                self.search(&["api", "funders"], &query)
                    .await?
                    .into_iter()
                    .find(|funder| names_funder(funder, address))
                    .and_then(|funder| funder["id"].as_str().map(str::to_string))
            }
        };
        self.remember(|v| v.funders.insert(address.to_string(), found.clone()));
        Ok(found)
    }

    /// The id in the site's awards of award `number` of the funder with vocabulary id
    /// `funder`, if it has one.
    async fn award_id(&self, funder: &str, number: &str) -> Result<Option<String>, Failure> {
        let asked = (funder.to_string(), number.to_string());
        if let Some(known) = self.answered(|v| v.awards.get(&asked).cloned()) {
            return Ok(known);
        }
        // Award numbers repeat between funders: the search asks for both, and the answer
        // is checked for both too (a site's search may match more loosely).
        let query = format!("number:{} AND funder.id:{}", phrase(number), phrase(funder));
        let found = self
            .search(&["api", "awards"], &query)
            .await?
            .into_iter()
            .find(|award| {
                award["funder"]["id"] == funder
                    && award["number"]
                        .as_str()
                        .is_some_and(|n| n.trim().eq_ignore_ascii_case(number))
            })
            .and_then(|award| award["id"].as_str().map(str::to_string));
        self.remember(|v| v.awards.insert(asked, found.clone()));
        Ok(found)
    }

    /// Links each affiliation of `metadata`'s creators and contributors given with a ROR
    /// to the site's affiliations where it lists it, in `body` (the draft's, as
    /// [`super::draft_body`] made it from `metadata`: its creators and contributors in the
    /// same order, each affiliation by its name, in its order).
    pub(super) async fn link_affiliations(
        &self,
        body: &mut Value,
        metadata: &Metadata,
    ) -> Result<(), Failure> {
        let contributors: Vec<Creator> = metadata.contributors.iter().map(|c| c.person()).collect();
        for (list, people) in [
            ("creators", &metadata.creators),
            ("contributors", &contributors),
        ] {
            for (i, person) in people.iter().enumerate() {
                for (k, affiliation) in person.affiliations.iter().enumerate() {
                    if let Some(id) = self.affiliation_id(affiliation).await? {
                        body["metadata"][list][i]["affiliations"][k] = json!({"id": id});
                    }
                }
            }
        }
        Ok(())
    }

    /// The id in the site's affiliations of `affiliation`, when it is given with its ROR
    /// and the site lists it.
    async fn affiliation_id(&self, affiliation: &Affiliation) -> Result<Option<String>, Failure> {
        let Some(address) = affiliation
            .ror
            .as_deref()
            .and_then(|ror| ror_address(ror).ok())
        else {
            return Ok(None);
        };
        if let Some(known) = self.answered(|v| v.affiliations.get(&address).cloned()) {
            return Ok(known);
        }
        let url = self.url(&["api", "affiliations", ror_id(&address)]);
        let found = self
            .vocabulary_entry(url)
            .await?
            .filter(|entry| names_organisation(entry, &address))
            .and_then(|entry| entry["id"].as_str().map(str::to_string));
        self.remember(|v| v.affiliations.insert(address, found.clone()));
        Ok(found)
    }

    /// The vocabulary entry at `url`; `None` when the site has no such entry (or no such
    /// vocabulary).
    async fn vocabulary_entry(&self, url: reqwest::Url) -> Result<Option<Value>, Failure> {
        let resp = self.send(Method::GET, url, None, false).await?;
        match resp.status() {
            StatusCode::OK => Ok(Some(Self::json_of(resp, "vocabulary").await?)),
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(Self::failure_of(resp).await),
        }
    }

    /// The entries of the vocabulary at `path` that `query` (InvenioRDM's query syntax)
    /// finds; none when the site has no such vocabulary.
    async fn search(&self, path: &[&str], query: &str) -> Result<Vec<Value>, Failure> {
        let mut url = self.url(path);
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("size", "50");
        let found = self.vocabulary_entry(url).await?;
        Ok(found
            .and_then(|body| body["hits"]["hits"].as_array().cloned())
            .unwrap_or_default())
    }

    pub(super) fn answered<T>(
        &self,
        read: impl FnOnce(&VocabularyAnswers) -> Option<T>,
    ) -> Option<T> {
        read(&self.vocabularies.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(super) fn remember<T>(&self, write: impl FnOnce(&mut VocabularyAnswers) -> T) {
        write(&mut self.vocabularies.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

/// `text` as a phrase of InvenioRDM's query syntax: in quotes, a quote or backslash in it
/// escaped.
fn phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Whether the affiliations vocabulary's `entry` is the organisation with ROR `address`:
/// by its id or one of its identifiers, in whatever spelling the site keeps them.
fn names_organisation(entry: &Value, address: &str) -> bool {
    identifiers_of(entry)
        .filter_map(|id| ror_address(id).ok())
        .any(|ror| ror == address)
}

/// A vocabulary entry's id and identifiers.
fn identifiers_of(entry: &Value) -> impl Iterator<Item = &str> {
    std::iter::once(&entry["id"])
        .chain(
            entry["identifiers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| &i["identifier"]),
        )
        .filter_map(Value::as_str)
}

/// Whether the vocabulary's `funder` is the one with keyed identifier `address`: by its id
/// or one of its identifiers, in whatever spelling the site keeps them.
fn names_funder(funder: &Value, address: &str) -> bool {
    identifiers_of(funder)
        .filter_map(funder_identifier)
        .any(|(keyed, _)| keyed == address)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_quoted_with_its_quotes_escaped() {
        assert_eq!(phrase("101017452"), r#""101017452""#);
        assert_eq!(phrase(r#"A"1\"#), r#""A\"1\\""#);
    }

    #[test]
    fn a_funder_is_matched_by_its_id_or_an_identifier_in_any_spelling() {
        let funder = json!({
            "id": "00k4n6c32",
            "identifiers": [
                {"identifier": "00k4n6c32", "scheme": "ror"},
                {"identifier": "10.13039/501100000780", "scheme": "doi"},
            ],
        });
        assert!(names_funder(&funder, "https://ror.org/00k4n6c32"));
        assert!(names_funder(
            &funder,
            "https://doi.org/10.13039/501100000780"
        ));
        assert!(!names_funder(&funder, "https://ror.org/021nxhr62"));
        assert!(!names_funder(&funder, "https://doi.org/10.13039/100000001"));
        let by_address = json!({"id": "internal-7", "identifiers": [
            {"identifier": "https://doi.org/10.13039/100000001", "scheme": "doi"}]});
        assert!(names_funder(
            &by_address,
            "https://doi.org/10.13039/100000001"
        ));
    }

    #[test]
    fn an_organisation_is_matched_by_its_ror_in_any_spelling() {
        let entry = json!({
            "id": "02en5vm52",
            "identifiers": [{"identifier": "https://ror.org/02EN5VM52", "scheme": "ror"}],
        });
        assert!(names_organisation(&entry, "https://ror.org/02en5vm52"));
        assert!(!names_organisation(&entry, "https://ror.org/052gg0110"));
        let by_identifier = json!({"id": "sorbonne", "identifiers": [
            {"identifier": "02en5vm52", "scheme": "ror"}]});
        assert!(names_organisation(
            &by_identifier,
            "https://ror.org/02en5vm52"
        ));
        assert!(!names_organisation(
            &json!({"id": "sorbonne"}),
            "https://ror.org/02en5vm52"
        ));
    }
}
