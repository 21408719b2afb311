//! The funders and awards vocabularies of the sandbox's InvenioRDM emulation: a small
//! sample, as a new InvenioRDM site holds until its administrator imports ROR's funders and
//! OpenAIRE's awards, served as InvenioRDM serves them.
//!
//! - `GET /api/funders/{id}`: a funder by its id (a ROR id without its address), or 404;
//! - `GET /api/funders?q=QUERY`: funders matching the query: `field:"value"` terms joined
//!   by ` AND ` (fields `id`, `name`, `country`, `identifiers.identifier`; each value
//!   equal, case aside), or text that one of those contains;
//! - `GET /api/awards?q=QUERY`: awards matching it, with the fields `id`, `number`,
//!   `acronym`, `title.en`, `funder.id`, `funder.name` and `identifiers.identifier`;
//! - `GET /api/awards/{id}`: an award by an id without a slash.
//!
//! A record's `funding` refers to them by `{"id": ...}`, and the emulation refuses an id not
//! in them and answers each referred entry with its name, number and title, as InvenioRDM
//! does.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::state::App;

/// A funder of the sample: its id (ROR), name, country and Crossref Funder ID.
struct Funder {
    id: &'static str,
    name: &'static str,
    country: &'static str,
    crossref: &'static str,
}

const FUNDERS: &[Funder] = &[
    Funder {
        id: "00k4n6c32",
        name: "European Commission",
        country: "BE",
        crossref: "10.13039/501100000780",
    },
    Funder {
        id: "01cwqze88",
        name: "National Institutes of Health",
        country: "US",
        crossref: "10.13039/100000002",
    },
    Funder {
        id: "021nxhr62",
        name: "National Science Foundation",
        country: "US",
        crossref: "10.13039/100000001",
    },
    Funder {
        id: "029chgv08",
        name: "Wellcome Trust",
        country: "GB",
        crossref: "10.13039/100010269",
    },
    Funder {
        id: "018mejw64",
        name: "Deutsche Forschungsgemeinschaft",
        country: "DE",
        crossref: "10.13039/501100001659",
    },
    Funder {
        id: "00yjd3n13",
        name: "Swiss National Science Foundation",
        country: "CH",
        crossref: "10.13039/501100001711",
    },
];

/// An award of the sample: its id, number, acronym, title and funder (by id). Ids take both
/// forms InvenioRDM's documentation shows: `FUNDER::NUMBER` and a DOI.
struct Award {
    id: &'static str,
    number: &'static str,
    acronym: Option<&'static str>,
    title: &'static str,
    funder: &'static str,
}

const AWARDS: &[Award] = &[
    Award {
        id: "00k4n6c32::101017452",
        number: "101017452",
        acronym: Some("OpenAIRE-Nexus"),
        title: "OpenAIRE-Nexus Scholarly Communication Services for EOSC users",
        funder: "00k4n6c32",
    },
    Award {
        id: "10.35802/221400",
        number: "221400",
        acronym: None,
        title: "COVID-Minds: Mental Health during Covid-19",
        funder: "029chgv08",
    },
];

pub(crate) fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/api/funders", get(search_funders))
        .route("/api/funders/{id}", get(get_funder))
        .route("/api/awards", get(search_awards))
        .route("/api/awards/{id}", get(get_award))
}

fn funder_json(f: &Funder) -> Value {
    json!({
        "id": f.id,
        "name": f.name,
        "title": {"en": f.name},
        "country": f.country,
        "identifiers": [
            {"identifier": f.id, "scheme": "ror"},
            {"identifier": f.crossref, "scheme": "doi"},
        ],
    })
}

fn award_json(a: &Award) -> Value {
    let mut award = json!({
        "id": a.id,
        "number": a.number,
        "title": {"en": a.title},
        "funder": funder_reference(a.funder),
    });
    if let Some(acronym) = a.acronym {
        award["acronym"] = json!(acronym);
    }
    award
}

/// A funder as a record refers to it, with its name.
fn funder_reference(id: &str) -> Value {
    match FUNDERS.iter().find(|f| f.id == id) {
        Some(f) => json!({"id": f.id, "name": f.name}),
        None => json!({"id": id}),
    }
}

/// Whether `id` is a funder of the vocabulary.
pub(crate) fn is_funder(id: &str) -> bool {
    FUNDERS.iter().any(|f| f.id == id)
}

/// Whether `id` is an award of the vocabulary.
pub(crate) fn is_award(id: &str) -> bool {
    AWARDS.iter().any(|a| a.id == id)
}

/// `funding` as a record answers it: each funder and award given by id, with the name,
/// number and title the vocabulary has for it (an id it lacks is left as given; such a
/// record has a validation error).
pub(crate) fn dereferenced(funding: &Value) -> Value {
    let Some(entries) = funding.as_array() else {
        return funding.clone();
    };
    let entries = entries.iter().map(|entry| {
        let mut entry = entry.clone();
        if let Some(id) = entry["funder"]["id"].as_str() {
            entry["funder"] = funder_reference(id);
        }
        if let Some(award) = entry["award"]["id"]
            .as_str()
            .and_then(|id| AWARDS.iter().find(|a| a.id == id))
        {
            entry["award"] = json!({
                "id": award.id,
                "number": award.number,
                "title": {"en": award.title},
            });
        }
        entry
    });
    Value::Array(entries.collect())
}

#[derive(serde::Deserialize)]
struct Search {
    q: Option<String>,
}

/// Whether an entry with these `(field, value)` pairs matches `query`, as the part of
/// InvenioRDM's query syntax Lodge uses reads it: terms joined by ` AND `, each
/// `field:"value"` (a value of that field equal to it, case aside) or text (contained in
/// one of the values); no query matches every entry.
fn matches(fields: &[(&str, &str)], query: Option<&str>) -> bool {
    let Some(query) = query.map(str::trim).filter(|q| !q.is_empty()) else {
        return true;
    };
    query.split(" AND ").all(|term| {
        let term = term.trim();
        let fielded = term
            .split_once(':')
            .filter(|(field, _)| fields.iter().any(|(name, _)| name == field));
        match fielded {
            Some((field, value)) => {
                let value = value.trim().trim_matches('"');
                fields
                    .iter()
                    .any(|(name, v)| *name == field && v.eq_ignore_ascii_case(value))
            }
            None => {
                let text = term.trim_matches('"').to_lowercase();
                fields.iter().any(|(_, v)| v.to_lowercase().contains(&text))
            }
        }
    })
}

fn hits(found: Vec<Value>) -> Response {
    let total = found.len();
    axum::Json(json!({"hits": {"hits": found, "total": total}})).into_response()
}

async fn search_funders(Query(search): Query<Search>) -> Response {
    let found = FUNDERS.iter().filter(|f| {
        let fields = [
            ("id", f.id),
            ("name", f.name),
            ("country", f.country),
            ("identifiers.identifier", f.id),
            ("identifiers.identifier", f.crossref),
        ];
        matches(&fields, search.q.as_deref())
    });
    hits(found.map(funder_json).collect())
}

async fn get_funder(Path(id): Path<String>) -> Response {
    match FUNDERS.iter().find(|f| f.id == id) {
        Some(f) => axum::Json(funder_json(f)).into_response(),
        None => not_found(),
    }
}

async fn search_awards(Query(search): Query<Search>) -> Response {
    let found = AWARDS.iter().filter(|a| {
        let funder = FUNDERS.iter().find(|f| f.id == a.funder);
        let fields = [
            ("id", a.id),
            ("number", a.number),
            ("acronym", a.acronym.unwrap_or_default()),
            ("title.en", a.title),
            ("funder.id", a.funder),
            ("funder.name", funder.map_or("", |f| f.name)),
        ];
        matches(&fields, search.q.as_deref())
    });
    hits(found.map(award_json).collect())
}

async fn get_award(Path(id): Path<String>) -> Response {
    match AWARDS.iter().find(|a| a.id == id) {
        Some(a) => axum::Json(award_json(a)).into_response(),
        None => not_found(),
    }
}

pub(crate) fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"status": 404, "message": "The persistent identifier does not exist."})),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_award_of_the_sample_has_a_funder_of_the_sample() {
        for award in AWARDS {
            assert!(is_funder(award.funder), "{}", award.id);
        }
    }

    #[test]
    fn every_funder_of_the_sample_is_a_ror_and_a_crossref_funder_id_lodge_reads() {
        use crate::content::{FunderScheme, funder_identifier};
        for f in FUNDERS {
            assert_eq!(
                funder_identifier(f.id),
                Some((format!("https://ror.org/{}", f.id), FunderScheme::Ror))
            );
            assert_eq!(
                funder_identifier(f.crossref).map(|(_, scheme)| scheme),
                Some(FunderScheme::CrossrefFunderId)
            );
        }
    }

    #[test]
    fn a_query_is_fielded_terms_joined_by_and_or_text() {
        let fields = [("number", "101017452"), ("funder.id", "00k4n6c32")];
        let hit = |q: &str| matches(&fields, Some(q));
        assert!(hit(r#"number:"101017452" AND funder.id:"00K4N6C32""#));
        assert!(!hit(r#"number:"101017452" AND funder.id:"021nxhr62""#));
        assert!(
            !hit(r#"number:"1017452""#),
            "a field's value is equal, not contained"
        );
        assert!(hit("1017"), "text is contained");
        assert!(hit("") && matches(&fields, None));
    }

    #[test]
    fn funding_by_id_is_answered_with_the_vocabularys_names() {
        let given = json!([
            {"funder": {"id": "00k4n6c32"}, "award": {"id": "00k4n6c32::101017452"}},
            {"funder": {"name": "A foundation"}},
            {"funder": {"id": "0unknown1"}},
        ]);
        assert_eq!(
            dereferenced(&given),
            json!([
                {"funder": {"id": "00k4n6c32", "name": "European Commission"},
                 "award": {"id": "00k4n6c32::101017452", "number": "101017452",
                           "title": {"en": "OpenAIRE-Nexus Scholarly Communication Services for EOSC users"}}},
                {"funder": {"name": "A foundation"}},
                {"funder": {"id": "0unknown1"}},
            ])
        );
    }
}
