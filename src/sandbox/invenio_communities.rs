//! Communities of the sandbox's InvenioRDM emulation, and the requests to include a
//! published record in one, served as InvenioRDM serves them:
//!
//! - `GET /api/communities/{id}`: a community by its id or its short name (slug), or 404;
//! - `GET /api/communities?q=WORDS&size=N`: a search, `{"hits": {"hits": [...], "total"}}`,
//!   of the communities one of whose words (of the short name or title, any case) is one
//!   of `q`'s (`OR` and `AND` between them are read as "or"); no `q` lists them all;
//! - `POST /api/records/{id}/communities` with `{"communities": [{"id": ...}]}`: for each
//!   community (by id or slug), a request to include the record's work, answered 200 with
//!   `{"processed": [...], "errors": [{"community", "message"}]}` (400 when none was
//!   asked); a community that has a request for the work already, or that does not exist,
//!   is an error of the answer; a record that is not published is 404;
//! - `GET /api/records/{id}/requests`: the work's requests.
//!
//! The sample has two communities, as a site's administrator would make them; their
//! curators never answer, so each request stays submitted. A third, `lab-internal`, is
//! restricted to members, which the emulation's user is not: it answers 403.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::state::App;

/// A community of the sample: its id, short name and title.
struct Community {
    id: &'static str,
    slug: &'static str,
    title: &'static str,
}

const COMMUNITIES: &[Community] = &[
    Community {
        id: "3f0a5a4e-5d3c-4c47-9e35-1c1f2b8a0001",
        slug: "soil-science",
        title: "Soil science",
    },
    Community {
        id: "3f0a5a4e-5d3c-4c47-9e35-1c1f2b8a0002",
        slug: "lake-sediments",
        title: "Lake sediments",
    },
];

/// The community with id or short name `id`.
fn community(id: &str) -> Option<&'static Community> {
    COMMUNITIES.iter().find(|c| c.id == id || c.slug == id)
}

pub(crate) fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/api/communities", get(search))
        .route("/api/communities/{id}", get(get_community))
        .route("/api/records/{id}/communities", post(include))
        .route("/api/records/{id}/requests", get(requests))
}

fn message(status: StatusCode, text: &str) -> Response {
    (
        status,
        axum::Json(json!({"status": status.as_u16(), "message": text})),
    )
        .into_response()
}

fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "The persistent identifier does not exist.",
    )
}

/// A restricted community of the sample, which the emulation's one user is not a member
/// of: InvenioRDM answers 403 for it.
const RESTRICTED: &str = "lab-internal";

fn community_json(c: &Community) -> Value {
    json!({
        "id": c.id,
        "slug": c.slug,
        "metadata": {"title": c.title},
    })
}

async fn get_community(Path(id): Path<String>) -> Response {
    if id == RESTRICTED {
        return message(StatusCode::FORBIDDEN, "Permission denied.");
    }
    match community(&id) {
        Some(c) => axum::Json(community_json(c)).into_response(),
        None => not_found(),
    }
}

/// The words of `text`, lower case: what a search index would make of it.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The search: whole words, as a search index's matches are, not parts of them. The
/// restricted community is not listed (its members would see it; the emulation's user is
/// not one).
async fn search(Query(asked): Query<std::collections::HashMap<String, String>>) -> Response {
    let size = match asked.get("size").map(|s| s.parse::<usize>()) {
        None => 10,
        Some(Ok(size)) if (1..=100).contains(&size) => size,
        Some(_) => return message(StatusCode::BAD_REQUEST, "Invalid size: 1 to 100."),
    };
    let wanted: Vec<String> = words(asked.get("q").map(String::as_str).unwrap_or(""))
        .into_iter()
        .filter(|w| w != "or" && w != "and")
        .collect();
    let found: Vec<Value> = COMMUNITIES
        .iter()
        .filter(|c| {
            wanted.is_empty() || {
                let own = [words(c.slug), words(c.title)].concat();
                wanted.iter().any(|w| own.contains(w))
            }
        })
        .map(community_json)
        .collect();
    let total = found.len();
    let hits: Vec<Value> = found.into_iter().take(size).collect();
    axum::Json(json!({"hits": {"hits": hits, "total": total}})).into_response()
}

fn request_json(seq: i64, record: &str, community: &str) -> Value {
    json!({
        "id": format!("req-{seq:06}"),
        "type": "community-inclusion",
        "status": "submitted",
        "receiver": {"community": community},
        "topic": {"record": record},
    })
}

async fn include(State(app): State<Arc<App>>, Path(id): Path<String>, body: Bytes) -> Response {
    let record = match app.db.invenio_get(&id) {
        Ok(Some(row)) if row.published => row,
        Ok(_) => return not_found(),
        Err(e) => return message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(list) = asked["communities"].as_array() else {
        return message(
            StatusCode::BAD_REQUEST,
            "Missing data for required field: communities.",
        );
    };
    let (mut processed, mut errors) = (Vec::new(), Vec::new());
    for entry in list {
        let given = entry["id"].as_str().unwrap_or_default();
        let Some(c) = community(given) else {
            errors.push(json!({"community": given, "message": "Community not found."}));
            continue;
        };
        match app.db.invenio_request_inclusion(&record, c.id) {
            Ok(Some(seq)) => processed.push(json!({
                "community_id": c.id,
                "request_id": format!("req-{seq:06}"),
                "request": request_json(seq, &record.id, c.id),
            })),
            Ok(None) => errors.push(json!({
                "community": c.id,
                "message": "There is already an open inclusion request for this community.",
            })),
            Err(e) => return message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        }
    }
    let status = match processed.is_empty() {
        true => StatusCode::BAD_REQUEST,
        false => StatusCode::OK,
    };
    let mut answer = json!({"processed": processed});
    if !errors.is_empty() {
        answer["errors"] = json!(errors);
    }
    (status, axum::Json(answer)).into_response()
}

async fn requests(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let record = match app.db.invenio_get(&id) {
        Ok(Some(row)) => row,
        Ok(None) => return not_found(),
        Err(e) => return message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    match app.db.invenio_requests(&record) {
        Ok(found) => {
            let hits: Vec<Value> = found
                .iter()
                .map(|(seq, record, community)| request_json(*seq, record, community))
                .collect();
            let total = hits.len();
            axum::Json(json!({"hits": {"hits": hits, "total": total}})).into_response()
        }
        Err(e) => message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}
