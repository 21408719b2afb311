//! The sandbox's DataCite emulation: `POST /dois` and `GET /dois/{prefix}/{suffix}` of the
//! DataCite REST API, as documented, so the DataCite target is tested over real HTTP.
//!
//! What it reproduces: JSON:API bodies (`application/vnd.api+json`), HTTP Basic auth with a
//! repository id and password (401 "Bad credentials."), the client-chosen DOI that must use
//! the repository's prefix, 201 with the DOI's attributes and `state` (`draft`, `registered`
//! after `event: register`, `findable` after `event: publish`), 422 `{"errors":[{"source":
//! "doi","title":"This DOI has already been taken"}]}` for a DOI that exists, 422 per missing
//! field when registering or publishing (a draft needs only its DOI), and 404 for an unknown
//! DOI. `PUT /dois/{prefix}/{suffix}` is DataCite's upsert: it changes a DOI that exists
//! (the attributes given replace those stored; an event raises its state, `hide` takes a
//! findable one back to registered; a registered or findable DOI is never a draft again) and
//! answers 200, or creates one as `POST` would and answers 201. `GET /repositories/{id}`
//! (public, as DataCite's is) lists the account's prefix in the repository's
//! `relationships.prefixes`, and answers 404 for any other repository. The sandbox's fault
//! injection applies to these routes too.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::db::DoiInsert;
use super::requests::{basic_credentials, same_secret};
use super::state::App;

/// The repository the emulation accepts, and the prefix it owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataCiteAccount {
    pub repository: String,
    pub password: String,
    pub prefix: String,
}

impl Default for DataCiteAccount {
    /// A local account and a prefix that is not DataCite's: nothing minted here is real.
    fn default() -> Self {
        DataCiteAccount {
            repository: "LODGE.SANDBOX".into(),
            password: "sandbox".into(),
            prefix: "10.80000".into(),
        }
    }
}

const JSON_API: &str = "application/vnd.api+json";

/// The DataCite routes, to merge into the sandbox's router (which supplies the state).
pub(crate) fn router() -> Router<Arc<App>> {
    Router::new()
        .route("/dois", post(create))
        .route("/dois/{prefix}/{suffix}", get(show).put(update))
        .route("/repositories/{id}", get(repository))
}

fn api_errors(status: StatusCode, errors: Vec<Value>) -> Response {
    let mut resp = (status, axum::Json(json!({ "errors": errors }))).into_response();
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_API));
    resp
}

fn api_data(status: StatusCode, doi: &str, attributes: Value) -> Response {
    let body =
        json!({"data": {"id": doi.to_lowercase(), "type": "dois", "attributes": attributes}});
    let mut resp = (status, axum::Json(body)).into_response();
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_API));
    resp
}

/// Basic auth with the account's repository id and password.
fn authorized(app: &App, headers: &HeaderMap) -> bool {
    let account = app.datacite_account();
    basic_credentials(headers).is_some_and(|(user, password)| {
        user == account.repository.as_bytes() && same_secret(&password, account.password.as_bytes())
    })
}

/// 401, with a Basic challenge so that a web browser opening a DOI's address here (the
/// window's *Open record*) asks for the repository id and password instead of showing the
/// error.
fn bad_credentials() -> Response {
    let mut resp = api_errors(
        StatusCode::UNAUTHORIZED,
        vec![json!({"status": "401", "title": "Bad credentials."})],
    );
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"DataCite emulation\""),
    );
    resp
}

async fn show(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((prefix, suffix)): Path<(String, String)>,
) -> Response {
    if !authorized(&app, &headers) {
        return bad_credentials();
    }
    let doi = format!("{prefix}/{suffix}");
    match app.db.doi(&doi) {
        Ok(Some(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(attributes) => api_data(StatusCode::OK, &doi, attributes),
            Err(e) => super::routes::internal_error("stored DOI", e),
        },
        Ok(None) => api_errors(
            StatusCode::NOT_FOUND,
            vec![
                json!({"status": "404", "title": "The resource you are looking for doesn't exist."}),
            ],
        ),
        Err(e) => super::routes::internal_error("DOI lookup", e),
    }
}

/// The account's repository, with its prefix, as DataCite's JSON:API shows a repository
/// (`type: repositories`, the id in lower case, the symbol in upper case). No credentials:
/// DataCite's repository pages are public.
async fn repository(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let account = app.datacite_account();
    if !id.eq_ignore_ascii_case(&account.repository) {
        return api_errors(
            StatusCode::NOT_FOUND,
            vec![
                json!({"status": "404", "title": "The resource you are looking for doesn't exist."}),
            ],
        );
    }
    let body = json!({"data": {
        "id": account.repository.to_lowercase(),
        "type": "repositories",
        "attributes": {
            "name": "Lodge sandbox repository",
            "symbol": account.repository.to_uppercase(),
        },
        "relationships": {
            "prefixes": {"data": [{"id": account.prefix, "type": "prefixes"}]},
        },
    }});
    let mut resp = (StatusCode::OK, axum::Json(body)).into_response();
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_API));
    resp
}

/// Fields DataCite requires to register or publish a DOI (a draft needs none of them).
fn missing_for_registration(attributes: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    let empty = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    // A list whose entries all have a blank name or title is as blank as an empty one.
    let blank_entries = |v: Option<&Value>, key: &str| {
        v.and_then(Value::as_array).is_some_and(|items| {
            items.iter().all(|i| {
                i.get(key)
                    .and_then(Value::as_str)
                    .is_none_or(|s| s.trim().is_empty())
            })
        })
    };
    if blank_entries(attributes.get("titles"), "title") && !empty(attributes.get("titles")) {
        errors.push(json!({"source": "titles", "title": "can't be blank"}));
    }
    if blank_entries(attributes.get("creators"), "name") && !empty(attributes.get("creators")) {
        errors.push(json!({"source": "creators", "title": "can't be blank"}));
    }
    for (field, title) in [
        ("creators", "can't be blank"),
        ("titles", "can't be blank"),
        ("publisher", "can't be blank"),
        ("publicationYear", "can't be blank"),
        ("url", "can't be blank"),
    ] {
        if empty(attributes.get(field)) {
            errors.push(json!({"source": field, "title": title}));
        }
    }
    if empty(
        attributes
            .get("types")
            .and_then(|t| t.get("resourceTypeGeneral")),
    ) {
        errors.push(json!({"source": "types", "title": "resourceTypeGeneral can't be blank"}));
    }
    errors
}

/// The `data.attributes` object of a JSON:API body, or the 400 DataCite answers.
// The error is the response to send, made once per refused request: boxing it buys nothing.
#[allow(clippy::result_large_err)]
fn attributes_of(body: &[u8]) -> Result<Value, Response> {
    let request: Value = serde_json::from_slice(body).map_err(|e| {
        api_errors(
            StatusCode::BAD_REQUEST,
            vec![
                json!({"status": "400", "title": format!("You need to provide a payload following the JSONAPI spec: {e}")}),
            ],
        )
    })?;
    request
        .get("data")
        .filter(|d| d.get("type").and_then(Value::as_str) == Some("dois"))
        .and_then(|d| d.get("attributes"))
        .cloned()
        .filter(Value::is_object)
        .ok_or_else(|| {
            api_errors(
                StatusCode::BAD_REQUEST,
                vec![
                    json!({"status": "400", "title": "You need to provide a payload following the JSONAPI spec"}),
                ],
            )
        })
}

/// The state a DOI in state `now` (`None`: a new one) is in after `event`, or the 422 for
/// an event that is none of DataCite's.
#[allow(clippy::result_large_err)]
fn state_after(now: Option<&str>, event: Option<&str>, doi: &str) -> Result<String, Response> {
    Ok(match (now, event) {
        (None, None) => "draft",
        (Some(now), None) => now,
        (_, Some("register")) if now == Some("findable") => "findable",
        (_, Some("register")) => "registered",
        (_, Some("publish")) => "findable",
        // Only a findable DOI can be hidden; a draft stays one.
        (Some("findable"), Some("hide")) => "registered",
        (Some(now), Some("hide")) => now,
        (None, Some("hide")) => "draft",
        (_, Some(other)) => {
            return Err(api_errors(
                StatusCode::UNPROCESSABLE_ENTITY,
                vec![
                    json!({"source": "event", "title": format!("'{other}' is not a valid event (register, publish, hide)"), "uid": doi}),
                ],
            ));
        }
    }
    .to_string())
}

/// The 422 for what a DOI that is to be registered or findable lacks, if anything.
fn refused_registration(state: &str, attributes: &Value, doi: &str) -> Option<Response> {
    if state == "draft" {
        return None;
    }
    let missing = missing_for_registration(attributes);
    (!missing.is_empty()).then(|| {
        let errors = missing
            .into_iter()
            .map(|mut e| {
                e["uid"] = json!(doi);
                e
            })
            .collect();
        api_errors(StatusCode::UNPROCESSABLE_ENTITY, errors)
    })
}

/// `PUT /dois/{prefix}/{suffix}`: change the DOI, or create it when there is none.
async fn update(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((prefix, suffix)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    if !authorized(&app, &headers) {
        return bad_credentials();
    }
    let doi = format!("{prefix}/{suffix}").to_lowercase();
    let mut given = match attributes_of(&body) {
        Ok(a) => a,
        Err(refused) => return refused,
    };
    let stored = match app.db.doi(&doi) {
        Ok(Some(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(attributes) => attributes,
            Err(e) => return super::routes::internal_error("stored DOI", e),
        },
        Ok(None) => {
            // The upsert's other half: a DOI that does not exist is created.
            given["doi"] = json!(doi);
            return create_doi(&app, given);
        }
        Err(e) => return super::routes::internal_error("DOI lookup", e),
    };
    let event = given
        .as_object_mut()
        .expect("checked to be an object")
        .remove("event");
    let now = stored.get("state").and_then(Value::as_str);
    let state = match state_after(now, event.as_ref().and_then(Value::as_str), &doi) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    let mut attributes = stored.clone();
    let object = attributes.as_object_mut().expect("stored as an object");
    for (field, value) in given.as_object().expect("checked to be an object") {
        // Which DOI this is, and its state, are not the body's to change.
        if !matches!(
            field.as_str(),
            "doi" | "prefix" | "suffix" | "state" | "created"
        ) {
            object.insert(field.clone(), value.clone());
        }
    }
    object.insert("state".into(), json!(state));
    object.insert("updated".into(), json!(now_iso()));
    if let Some(refused) = refused_registration(&state, &attributes, &doi) {
        return refused;
    }
    match app.db.update_doi(&doi, &attributes.to_string()) {
        Ok(true) => api_data(StatusCode::OK, &doi, attributes),
        // Nothing deletes a DOI here, so it cannot have gone since it was read.
        Ok(false) => super::routes::internal_error("DOI update", "the DOI vanished"),
        Err(e) => super::routes::internal_error("DOI update", e),
    }
}

async fn create(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if !authorized(&app, &headers) {
        return bad_credentials();
    }
    match attributes_of(&body) {
        Ok(attributes) => create_doi(&app, attributes),
        Err(refused) => refused,
    }
}

/// Create the DOI `attributes` name, as `POST /dois` does.
fn create_doi(app: &App, mut attributes: Value) -> Response {
    let account = app.datacite_account();
    let Some(doi) = attributes
        .get("doi")
        .and_then(Value::as_str)
        .map(str::to_lowercase)
    else {
        return api_errors(
            StatusCode::UNPROCESSABLE_ENTITY,
            vec![json!({"source": "doi", "title": "can't be blank"})],
        );
    };
    match doi.split_once('/') {
        Some((prefix, suffix)) if prefix == account.prefix && !suffix.is_empty() => {}
        _ => {
            return api_errors(
                StatusCode::UNPROCESSABLE_ENTITY,
                vec![
                    json!({"source": "doi", "title": format!("Prefix is not assigned to repository {}", account.repository), "uid": doi}),
                ],
            );
        }
    }
    let event = attributes.get("event").and_then(Value::as_str);
    let state = match state_after(None, event, &doi) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    // "Already taken" is decided before validation, as DataCite does for a known DOI.
    if app.db.doi(&doi).ok().flatten().is_some() {
        return taken(&doi);
    }
    if let Some(refused) = refused_registration(&state, &attributes, &doi) {
        return refused;
    }
    let object = attributes.as_object_mut().expect("checked to be an object");
    object.remove("event");
    object.insert("doi".into(), json!(doi));
    object.insert("prefix".into(), json!(account.prefix));
    object.insert("suffix".into(), json!(doi.split_once('/').map(|(_, s)| s)));
    object.insert("state".into(), json!(state));
    object.insert("created".into(), json!(now_iso()));
    let text = attributes.to_string();
    match app.db.insert_doi(&doi, &text) {
        Ok(DoiInsert::Created) => api_data(StatusCode::CREATED, &doi, attributes),
        Ok(DoiInsert::Taken) => taken(&doi),
        Err(e) => super::routes::internal_error("DOI insert", e),
    }
}

fn taken(doi: &str) -> Response {
    api_errors(
        StatusCode::UNPROCESSABLE_ENTITY,
        vec![json!({"source": "doi", "title": "This DOI has already been taken", "uid": doi})],
    )
}

fn now_iso() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
