//! The affiliations vocabulary of the sandbox's InvenioRDM emulation: a small sample of
//! ROR's organisations, as a new InvenioRDM site holds until its administrator imports
//! ROR, served as InvenioRDM serves them.
//!
//! - `GET /api/affiliations/{id}`: an organisation by its id (its ROR id, without the
//!   address), or 404.
//!
//! A creator's or contributor's `affiliations` refer to one by `{"id": ...}` or name one
//! not in the vocabulary by `{"name": ...}`; the emulation refuses an id it does not hold
//! and an entry with neither, and answers each referred entry with its name, as InvenioRDM
//! does.

use std::sync::Arc;

use axum::Router;
use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::invenio_vocabularies::not_found;
use super::state::App;

/// An organisation of the sample: its ROR id, name, acronym and country.
struct Organisation {
    id: &'static str,
    name: &'static str,
    acronym: &'static str,
    country: &'static str,
}

const ORGANISATIONS: &[Organisation] = &[
    Organisation {
        id: "01ggx4157",
        name: "European Organization for Nuclear Research",
        acronym: "CERN",
        country: "CH",
    },
    Organisation {
        id: "05a28rw58",
        name: "ETH Zurich",
        acronym: "ETHZ",
        country: "CH",
    },
    Organisation {
        id: "02crff812",
        name: "University of Zurich",
        acronym: "UZH",
        country: "CH",
    },
    Organisation {
        id: "02en5vm52",
        name: "Sorbonne University",
        acronym: "",
        country: "FR",
    },
    Organisation {
        id: "052gg0110",
        name: "University of Oxford",
        acronym: "",
        country: "GB",
    },
];

pub(crate) fn router() -> Router<Arc<App>> {
    Router::new().route("/api/affiliations/{id}", get(get_affiliation))
}

fn organisation_json(o: &Organisation) -> Value {
    let mut entry = json!({
        "id": o.id,
        "name": o.name,
        "title": {"en": o.name},
        "country": o.country,
        "identifiers": [{"identifier": o.id, "scheme": "ror"}],
    });
    if !o.acronym.is_empty() {
        entry["acronym"] = json!(o.acronym);
    }
    entry
}

async fn get_affiliation(Path(id): Path<String>) -> Response {
    match ORGANISATIONS.iter().find(|o| o.id == id) {
        Some(o) => axum::Json(organisation_json(o)).into_response(),
        None => not_found(),
    }
}

/// What InvenioRDM says of the affiliations of a record's creators and contributors: each
/// an organisation of the vocabulary by its id, or one named by its name.
pub(crate) fn affiliation_errors(metadata: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for list in ["creators", "contributors"] {
        for (i, person) in metadata[list].as_array().into_iter().flatten().enumerate() {
            let affiliations = person["affiliations"].as_array().into_iter().flatten();
            for (j, a) in affiliations.enumerate() {
                let field = format!("metadata.{list}.{i}.affiliations.{j}");
                let named = a["name"].as_str().is_some_and(|n| !n.trim().is_empty());
                let message = match a["id"].as_str() {
                    Some(id) if !ORGANISATIONS.iter().any(|o| o.id == id) => {
                        format!("The affiliation id '{id}' is not in the affiliations vocabulary.")
                    }
                    Some(_) => continue,
                    None if named => continue,
                    None => "An existing id or a free text name must be present.".to_string(),
                };
                errors.push(json!({"field": field, "messages": [message]}));
            }
        }
    }
    errors
}

/// `metadata` as a record answers it: each affiliation given by id with the name the
/// vocabulary has for it (an id it lacks is left as given; such a record has a validation
/// error).
pub(crate) fn with_affiliation_names(metadata: &mut Value) {
    for list in ["creators", "contributors"] {
        // `get_mut`, not indexing: indexing a JSON object for writing adds the member.
        let people = metadata.get_mut(list).and_then(Value::as_array_mut);
        for person in people.into_iter().flatten() {
            let affiliations = person.get_mut("affiliations").and_then(Value::as_array_mut);
            for a in affiliations.into_iter().flatten() {
                let known = a["id"]
                    .as_str()
                    .and_then(|id| ORGANISATIONS.iter().find(|o| o.id == id));
                if let Some(o) = known {
                    *a = json!({"id": o.id, "name": o.name});
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_organisation_of_the_sample_is_a_ror_lodge_reads() {
        for o in ORGANISATIONS {
            let address = format!("https://ror.org/{}", o.id);
            assert_eq!(crate::content::ror_address(o.id), Ok(address), "{}", o.name);
        }
    }

    #[test]
    fn an_unknown_id_or_an_entry_without_id_or_name_is_refused_and_a_known_one_named() {
        let mut metadata = json!({
            "creators": [
                {"affiliations": [{"id": "02en5vm52"}, {"name": "Soil Lab"}]},
                {"person_or_org": {"name": "Lab"}},
            ],
            "contributors": [{"affiliations": [{"id": "0abcdef12"}, {}]}],
        });
        let errors = affiliation_errors(&metadata);
        let fields: Vec<&str> = errors.iter().filter_map(|e| e["field"].as_str()).collect();
        assert_eq!(
            fields,
            [
                "metadata.contributors.0.affiliations.0",
                "metadata.contributors.0.affiliations.1"
            ]
        );
        with_affiliation_names(&mut metadata);
        assert_eq!(
            metadata["creators"][0]["affiliations"],
            json!([{"id": "02en5vm52", "name": "Sorbonne University"}, {"name": "Soil Lab"}])
        );
        assert_eq!(
            metadata["contributors"][0]["affiliations"][0],
            json!({"id": "0abcdef12"})
        );
        assert_eq!(
            metadata["creators"][1],
            json!({"person_or_org": {"name": "Lab"}}),
            "none added where there were none"
        );
    }
}
