//! The sandbox's InvenioRDM emulation (Zenodo runs InvenioRDM): the records API as
//! documented, so the Invenio/Zenodo target is tested over real HTTP.
//!
//! Reproduced: bearer-token auth (401; without a token, a published record that is public,
//! its file list and its open files are read, as a browser following its landing page's
//! links reads them), drafts (`POST /api/records` -> 201, saved even when
//! incomplete, with an `errors` list), the three-step file upload (`POST .../draft/files`,
//! `PUT .../files/{key}/content`, `POST .../files/{key}/commit` answering the MD5 checksum),
//! publish (`POST .../draft/actions/publish` -> 202; 400 `{"status","message","errors":
//! [{"field","messages"}]}` when metadata is missing, a license id is not in the license
//! vocabulary (SPDX identifiers, lower-cased), or a file is not committed), discarding
//! a draft (`DELETE .../draft` -> 204), a published file's bytes
//! (`GET /api/records/{id}/files/{key}/content`), the user's records and drafts with a query
//! (`GET /api/user/records?q=`), a sample of the funders and awards vocabularies
//! (`invenio_vocabularies.rs`) and of the affiliations vocabulary
//! (`invenio_affiliations.rs`), communities and requests to include a record in one
//! (`invenio_communities.rs`), and the rate-limit headers `X-RateLimit-Limit`,
//! `X-RateLimit-Remaining`, `X-RateLimit-Reset` with 429 over the limit. The sandbox's fault
//! injection applies, including `--timeout-after-commit` (a publish that answers 504 after
//! it happened).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::wording::human_bytes;

use super::db::InvenioRow;
use super::invenio_affiliations::{affiliation_errors, with_affiliation_names};
use super::invenio_vocabularies::{dereferenced, is_award, is_funder};
use super::page::{escape, page};
use super::state::App;

/// The one user the emulation knows, and its rate limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvenioAccount {
    /// Personal access token expected as `Authorization: Bearer TOKEN`.
    pub token: String,
    /// Requests per minute before 429 (Zenodo allows 100 a minute).
    pub requests_per_minute: u32,
    /// Publish, then answer 504 as Zenodo's gateway sometimes does after it happened.
    pub publish_times_out: bool,
}

impl Default for InvenioAccount {
    fn default() -> Self {
        InvenioAccount {
            token: "sandbox".into(),
            requests_per_minute: 6000,
            publish_times_out: false,
        }
    }
}

/// Requests counted in the current one-minute window.
#[derive(Default)]
pub(crate) struct RateWindow {
    started: u64,
    used: u32,
}

/// Largest file the emulation keeps (in its database).
const FILE_LIMIT: usize = 64 * 1024 * 1024;

pub(crate) fn router(app: Arc<App>) -> Router<Arc<App>> {
    Router::new()
        .route("/api/records", post(create_draft))
        .route("/api/records/{id}", get(get_record))
        .route(
            "/api/records/{id}/draft",
            get(get_draft).put(update_draft).delete(delete_draft),
        )
        .route("/api/records/{id}/versions", post(new_version))
        .route(
            "/api/records/{id}/draft/files",
            get(list_files).post(init_files),
        )
        .route(
            "/api/records/{id}/draft/files/{key}/content",
            get(get_draft_content).put(put_content),
        )
        .route(
            "/api/records/{id}/draft/files/{key}/commit",
            post(commit_file),
        )
        .route("/api/records/{id}/draft/actions/publish", post(publish))
        .route("/api/records/{id}/files", get(list_published_files))
        .route("/api/records/{id}/files/{key}/content", get(get_content))
        .route("/api/user/records", get(user_records))
        .merge(super::invenio_vocabularies::router())
        .merge(super::invenio_affiliations::router())
        .merge(super::invenio_communities::router())
        .layer(axum::extract::DefaultBodyLimit::max(FILE_LIMIT))
        .layer(middleware::from_fn_with_state(app, guard))
}

fn message(status: StatusCode, text: &str) -> Response {
    (
        status,
        axum::Json(json!({"status": status.as_u16(), "message": text})),
    )
        .into_response()
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

/// Auth and the rate limit, with the rate-limit headers on every answer.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let account = app.invenio_account();
    let now = now_secs();
    let (remaining, reset, over) = {
        let mut w = app.invenio_window.lock().unwrap_or_else(|e| e.into_inner());
        if now >= w.started + 60 {
            w.started = now;
            w.used = 0;
        }
        w.used += 1;
        let over = w.used > account.requests_per_minute;
        (
            account.requests_per_minute.saturating_sub(w.used),
            w.started + 60,
            over,
        )
    };
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    // Without a token (a browser following a landing page's link sends none, or the
    // sandbox's own password), what InvenioRDM shows anyone is served; a token given is
    // checked, as InvenioRDM refuses a wrong one whatever is asked.
    let token_ok = match bearer {
        Some(t) => t.trim() == account.token,
        None => open_to_anyone(&app, &req),
    };
    let mut resp = if over {
        let mut r = message(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests: rate limit exceeded.",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(reset - now));
        r
    } else if !token_ok {
        message(
            StatusCode::UNAUTHORIZED,
            "The server could not verify that you are authorized to access the URL requested.",
        )
    } else {
        next.run(req).await
    };
    let h = resp.headers_mut();
    h.insert(
        "x-ratelimit-limit",
        HeaderValue::from(account.requests_per_minute),
    );
    h.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
    h.insert("x-ratelimit-reset", HeaderValue::from(reset));
    resp
}

/// Whether `req` reads what InvenioRDM shows anyone, without a token: a published record
/// whose metadata is public (`GET /api/records/{id}`), and the file list and files of one
/// whose files are public too (open access: an embargo keeps them restricted). Drafts,
/// restricted files and every write need the token.
fn open_to_anyone(app: &App, req: &Request) -> bool {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return false;
    }
    let segments: Vec<&str> = req.uri().path().split('/').collect();
    let (id, files) = match segments.as_slice() {
        ["", "api", "records", id] => (*id, false),
        ["", "api", "records", id, "files"] => (*id, true),
        ["", "api", "records", id, "files", _, "content"] => (*id, true),
        _ => return false,
    };
    let Ok(Some(row)) = app.db.invenio_get(id) else {
        return false;
    };
    let data: Value = serde_json::from_str(&row.data).unwrap_or(Value::Null);
    let public = |part: &str| data["access"][part].as_str() == Some("public");
    row.published && public("record") && (!files || public("files"))
}

/// `key` as one segment of a URL path: a file's key may hold `/`, `#`, `?`, spaces and
/// anything else a file name does, and the routes take it as one segment.
fn key_segment(key: &str) -> String {
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(key, SEGMENT).to_string()
}

/// Required metadata, as InvenioRDM reports it: one entry per field.
fn validation_errors(data: &Value) -> Vec<Value> {
    let m = &data["metadata"];
    let blank = |v: &Value| match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    let mut errors = Vec::new();
    for (field, value) in [
        ("metadata.title", &m["title"]),
        ("metadata.creators", &m["creators"]),
        ("metadata.publication_date", &m["publication_date"]),
        ("metadata.resource_type", &m["resource_type"]["id"]),
        ("metadata.publisher", &m["publisher"]),
    ] {
        if blank(value) {
            errors.push(json!({"field": field, "messages": ["Missing data for required field."]}));
        }
    }
    // A right is a license of the vocabulary (SPDX identifiers, lower-cased) by its id, or
    // a custom one with a title.
    for (i, right) in m["rights"].as_array().into_iter().flatten().enumerate() {
        match right["id"].as_str() {
            Some(id)
                if crate::content::spdx_license_id(id).map(str::to_lowercase)
                    != Some(id.to_string()) =>
            {
                errors.push(json!({
                    "field": format!("metadata.rights.{i}.id"),
                    "messages": [format!("The license '{id}' is not in the license vocabulary.")],
                }));
            }
            Some(_) => {}
            None if blank(&right["title"]) => errors.push(json!({
                "field": format!("metadata.rights.{i}"),
                "messages": ["A custom license needs a title."],
            })),
            None => {}
        }
    }
    errors.extend(related_errors(&m["related_identifiers"]));
    errors.extend(funding_errors(&m["funding"]));
    errors.extend(contributor_errors(&m["contributors"]));
    errors.extend(person_identifier_errors(m));
    errors.extend(affiliation_errors(m));
    errors.extend(date_errors(&m["dates"]));
    errors.extend(location_errors(&m["locations"]));
    errors.extend(description_errors(&m["additional_descriptions"]));
    errors.extend(language_errors(&m["languages"]));
    errors.extend(access_errors(&data["access"]));
    errors
}

/// The error InvenioRDM gives `field` when its `{"id": ...}` is not one of a vocabulary
/// whose ids are DataCite's `names` in lower case (a `what`, in the message).
fn outside_vocabulary(value: &Value, names: &[&str], field: &str, what: &str) -> Option<Value> {
    let id = value["id"].as_str().unwrap_or_default();
    let known = names.iter().any(|name| name.to_lowercase() == id);
    (!known).then(|| {
        json!({
            "field": field,
            "messages": [format!("Invalid {what} '{id}'.")],
        })
    })
}

/// What InvenioRDM says of dates: a type of its date types vocabulary (DataCite's, in lower
/// case) and a date it reads as EDTF (here: a date or range Lodge's own check accepts).
fn date_errors(dates: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for (i, d) in dates.as_array().into_iter().flatten().enumerate() {
        let field = format!("metadata.dates.{i}.type");
        let types = crate::content::DATE_TYPES;
        errors.extend(outside_vocabulary(&d["type"], types, &field, "date type"));
        let date = crate::content::DatasetDate {
            date_type: "Other".into(),
            date: d["date"].as_str().unwrap_or_default().to_string(),
        };
        if date.problem().is_some() {
            errors.push(json!({
                "field": format!("metadata.dates.{i}.date"),
                "messages": ["Please provide a valid date or interval."],
            }));
        }
    }
    errors
}

/// What InvenioRDM says of additional descriptions: each a text with a type of its
/// description types vocabulary (DataCite's, in lower case).
fn description_errors(descriptions: &Value) -> Vec<Value> {
    const TYPES: &[&str] = &[
        "Abstract",
        "Methods",
        "SeriesInformation",
        "TableOfContents",
        "TechnicalInfo",
        "Other",
    ];
    let mut errors = Vec::new();
    for (i, d) in descriptions.as_array().into_iter().flatten().enumerate() {
        let field = format!("metadata.additional_descriptions.{i}");
        errors.extend(outside_vocabulary(
            &d["type"],
            TYPES,
            &format!("{field}.type"),
            "description type",
        ));
        if d["description"]
            .as_str()
            .is_none_or(|t| t.trim().is_empty())
        {
            errors.push(json!({
                "field": format!("{field}.description"),
                "messages": ["Missing data for required field."],
            }));
        }
    }
    errors
}

/// What InvenioRDM says of locations: GeoJSON features under `features`, each with a
/// geometry (a point, points, a polygon or polygons, its positions longitude then latitude
/// in range, each ring closed), a place or a description.
fn location_errors(locations: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    if locations.is_null() {
        return errors;
    }
    let Some(features) = locations["features"].as_array() else {
        errors.push(json!({
            "field": "metadata.locations.features",
            "messages": ["Missing data for required field."],
        }));
        return errors;
    };
    for (i, f) in features.iter().enumerate() {
        let field = format!("metadata.locations.features.{i}");
        let given = |key: &str| !f[key].is_null();
        if !(given("geometry") || given("place") || given("description")) {
            errors.push(json!({
                "field": field,
                "messages": ["At least one of ['geometry', 'place', 'description'] must be present."],
            }));
        }
        if given("geometry") && !is_geometry(&f["geometry"]) {
            errors.push(json!({
                "field": format!("{field}.geometry"),
                "messages": ["Invalid GeoJSON geometry."],
            }));
        }
    }
    errors
}

/// Whether `g` is a GeoJSON point, points, polygon or polygons InvenioRDM takes.
fn is_geometry(g: &Value) -> bool {
    let position = |p: &Value| match p.as_array().map(Vec::as_slice) {
        Some([lon, lat]) => {
            let (lon, lat) = (lon.as_f64(), lat.as_f64());
            lon.is_some_and(|v| v.abs() <= 180.0) && lat.is_some_and(|v| v.abs() <= 90.0)
        }
        _ => false,
    };
    let ring = |r: &Value| {
        r.as_array()
            .is_some_and(|r| r.len() >= 4 && r.iter().all(position) && r.first() == r.last())
    };
    let polygon = |p: &Value| {
        p.as_array()
            .is_some_and(|p| !p.is_empty() && p.iter().all(ring))
    };
    let all = |v: &Value, each: &dyn Fn(&Value) -> bool| {
        v.as_array()
            .is_some_and(|v| !v.is_empty() && v.iter().all(each))
    };
    let c = &g["coordinates"];
    match g["type"].as_str() {
        Some("Point") => position(c),
        Some("MultiPoint") => all(c, &position),
        Some("Polygon") => polygon(c),
        Some("MultiPolygon") => all(c, &polygon),
        _ => false,
    }
}

/// What InvenioRDM says of languages: each by its id in the languages vocabulary (ISO
/// 639-3's codes, all of them, as InvenioRDM's fixtures load it).
fn language_errors(languages: &Value) -> Vec<Value> {
    let entries = languages.as_array().into_iter().flatten().enumerate();
    let unknown = entries.filter(|(_, l)| {
        l["id"]
            .as_str()
            .and_then(isolang::Language::from_639_3)
            .is_none()
    });
    let errors = unknown.map(|(i, l)| {
        let id = l["id"].as_str().unwrap_or_default();
        json!({
            "field": format!("metadata.languages.{i}.id"),
            "messages": [format!("Invalid language '{id}'.")],
        })
    });
    errors.collect()
}

/// `languages` as a record answers them: each with its English name as its title.
fn languages_named(languages: &Value) -> Value {
    let Some(entries) = languages.as_array() else {
        return languages.clone();
    };
    let named =
        entries.iter().map(
            |l| match l["id"].as_str().and_then(isolang::Language::from_639_3) {
                Some(language) => {
                    json!({"id": language.to_639_3(), "title": {"en": language.to_name()}})
                }
                None => l.clone(),
            },
        );
    Value::Array(named.collect())
}

/// What InvenioRDM says of contributors: each a person or organisation with a role of its
/// roles vocabulary (DataCite's contributor types, in lower case).
fn contributor_errors(contributors: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for (i, c) in contributors.as_array().into_iter().flatten().enumerate() {
        let field = format!("metadata.contributors.{i}.role");
        let roles = crate::content::CONTRIBUTOR_ROLES;
        errors.extend(outside_vocabulary(&c["role"], roles, &field, "role"));
        if c["person_or_org"].as_object().is_none_or(|p| p.is_empty()) {
            errors.push(json!({
                "field": format!("metadata.contributors.{i}.person_or_org"),
                "messages": ["Missing data for required field."],
            }));
        }
    }
    errors
}

/// What InvenioRDM says of the identifiers of creators and contributors: each of a scheme
/// it knows for a person or organisation, and a ROR (an organisation's own) one that is.
fn person_identifier_errors(metadata: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for list in ["creators", "contributors"] {
        for (i, person) in metadata[list].as_array().into_iter().flatten().enumerate() {
            let identifiers = person["person_or_org"]["identifiers"].as_array();
            for (j, id) in identifiers.into_iter().flatten().enumerate() {
                let field = format!("metadata.{list}.{i}.person_or_org.identifiers.{j}");
                let value = id["identifier"].as_str().unwrap_or_default();
                let message = match id["scheme"].as_str() {
                    Some("ror") if crate::content::ror_address(value).is_err() => {
                        format!("Invalid ROR identifier '{value}'.")
                    }
                    Some("orcid" | "isni" | "gnd" | "ror") => continue,
                    _ => "Invalid scheme.".to_string(),
                };
                errors.push(json!({"field": field, "messages": [message]}));
            }
        }
    }
    errors
}

/// What InvenioRDM says of funding: a funder by its vocabulary id or by name, and an award
/// (when there is one) by its vocabulary id or by both its number and its title.
fn funding_errors(funding: &Value) -> Vec<Value> {
    let given = |v: &Value| v.as_str().is_some_and(|s| !s.trim().is_empty());
    let mut errors = Vec::new();
    for (i, f) in funding.as_array().into_iter().flatten().enumerate() {
        let mut error = |part: &str, message: &str| {
            errors.push(json!({
                "field": format!("metadata.funding.{i}.{part}"),
                "messages": [message],
            }));
        };
        let (funder, award) = (&f["funder"], &f["award"]);
        if funder.is_null() && award.is_null() {
            error("funder", "At least award or funder should be present.");
        }
        match funder["id"].as_str() {
            Some(id) if !is_funder(id) => {
                error("funder", "The funder id is not in the funders vocabulary.")
            }
            Some(_) => {}
            None if !funder.is_null() && !given(&funder["name"]) => {
                error("funder", "Missing data for required field.")
            }
            None => {}
        }
        if let Some(id) = award["id"].as_str() {
            if !is_award(id) {
                error("award", "The award id is not in the awards vocabulary.");
            }
        } else if !award.is_null() {
            let titled = award["title"]
                .as_object()
                .is_some_and(|t| t.values().any(given));
            if !(given(&award["number"]) && titled) {
                error("award", "An existing id or number/title must be present.");
            }
        }
    }
    errors
}

/// What InvenioRDM says of related identifiers: a relation type of its vocabulary
/// (DataCite's, in lower case) and an identifier its scheme recognises.
fn related_errors(related: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for (i, r) in related.as_array().into_iter().flatten().enumerate() {
        let field = format!("metadata.related_identifiers.{i}.relation_type");
        let types = crate::content::RELATION_TYPES;
        errors.extend(outside_vocabulary(
            &r["relation_type"],
            types,
            &field,
            "relation type",
        ));
        let identifier = r["identifier"].as_str().unwrap_or_default();
        let recognised = match r["scheme"].as_str() {
            Some("doi") => identifier.starts_with("10.") && identifier.contains('/'),
            Some("url") => identifier.starts_with("https://") || identifier.starts_with("http://"),
            _ => false,
        };
        if !recognised {
            errors.push(json!({
                "field": format!("metadata.related_identifiers.{i}.identifier"),
                "messages": [format!("Invalid {} identifier '{identifier}'.", r["scheme"])],
            }));
        }
    }
    errors
}

/// What InvenioRDM says of a draft's `access`: each part public or restricted, and an
/// active embargo with an end date still to come.
fn access_errors(access: &Value) -> Vec<Value> {
    let mut errors = Vec::new();
    for part in ["record", "files"] {
        match access[part].as_str() {
            Some("public" | "restricted") => {}
            _ => errors.push(json!({
                "field": format!("access.{part}"),
                "messages": ["Must be one of: public, restricted."],
            })),
        }
    }
    let embargo = &access["embargo"];
    if embargo["active"].as_bool() == Some(true) {
        match embargo["until"].as_str() {
            None => errors.push(json!({
                "field": "access.embargo.until",
                "messages": ["An active embargo needs an end date."],
            })),
            Some(until) if !crate::content::is_calendar_date(until) => errors.push(json!({
                "field": "access.embargo.until",
                "messages": ["Not a valid date."],
            })),
            Some(until) if until <= crate::content::today().as_str() => errors.push(json!({
                "field": "access.embargo.until",
                "messages": ["The embargo's end date must be in the future."],
            })),
            Some(_) => {}
        }
    }
    errors
}

fn record_json(app: &App, row: &InvenioRow, draft: bool) -> Value {
    let data: Value = serde_json::from_str(&row.data).unwrap_or(Value::Null);
    let api = format!("{}/api/records/{}", app.base_url, row.id);
    let links = if draft {
        json!({
            "self": format!("{api}/draft"),
            "files": format!("{api}/draft/files"),
            "publish": format!("{api}/draft/actions/publish"),
            "self_html": format!("{}/uploads/{}", app.base_url, row.id),
        })
    } else {
        json!({
            "self": api,
            "self_html": format!("{}/records/{}", app.base_url, row.id),
        })
    };
    let mut out = json!({
        "id": row.id,
        "is_draft": draft,
        "is_published": row.published,
        "status": if row.published { "published" } else { "draft" },
        "metadata": data["metadata"],
        "access": data["access"],
        "files": {"enabled": data["files"]["enabled"].as_bool().unwrap_or(true)},
        "created": row.created,
        "updated": row.updated,
        "links": links,
        "parent": {"id": row.parent},
    });
    if !out["metadata"]["funding"].is_null() {
        out["metadata"]["funding"] = dereferenced(&out["metadata"]["funding"]);
    }
    with_affiliation_names(&mut out["metadata"]);
    if !out["metadata"]["languages"].is_null() {
        out["metadata"]["languages"] = languages_named(&out["metadata"]["languages"]);
    }
    if let Ok((index, is_latest)) = app.db.invenio_version_of(row) {
        out["versions"] = json!({"index": index, "is_latest": is_latest, "is_latest_draft": draft});
    }
    if draft {
        out["errors"] = json!(validation_errors(&data));
    }
    out
}

fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "The persistent identifier does not exist.",
    )
}

fn internal(e: impl std::fmt::Display) -> Response {
    message(
        StatusCode::INTERNAL_SERVER_ERROR,
        &format!("internal error: {e}"),
    )
}

/// A request body that must be a JSON object, or the 400 InvenioRDM answers otherwise.
#[allow(clippy::result_large_err)]
fn json_object(body: &[u8]) -> Result<Value, Response> {
    match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err((
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"status": 400, "message": "Invalid JSON body."})),
        )
            .into_response()),
    }
}

async fn create_draft(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let data = match json_object(&body) {
        Ok(data) => data,
        Err(resp) => return resp,
    };
    match app.db.invenio_create(&data.to_string()) {
        Ok(row) => (
            StatusCode::CREATED,
            axum::Json(record_json(&app, &row, true)),
        )
            .into_response(),
        Err(e) => internal(e),
    }
}

// A handler-local helper: the error is the response to send, built once per request.
#[allow(clippy::result_large_err)]
fn draft_row(app: &App, id: &str) -> Result<InvenioRow, Response> {
    match app.db.invenio_get(id) {
        Ok(Some(row)) if !row.published => Ok(row),
        Ok(_) => Err(not_found()),
        Err(e) => Err(internal(e)),
    }
}

async fn get_record(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.db.invenio_get(&id) {
        Ok(Some(row)) if row.published => {
            axum::Json(record_json(&app, &row, false)).into_response()
        }
        Ok(_) => not_found(),
        Err(e) => internal(e),
    }
}

/// `POST /api/records/{id}/versions`: a draft new version of the published record `id`
/// (the work's pending one if it has one already).
async fn new_version(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.db.invenio_new_version(&id) {
        Ok(Some(draft)) => (
            StatusCode::CREATED,
            axum::Json(record_json(&app, &draft, true)),
        )
            .into_response(),
        Ok(None) => not_found(),
        Err(e) => internal(e),
    }
}

/// `PUT /api/records/{id}/draft`: replace a draft's metadata, access and files options.
async fn update_draft(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let data = match json_object(&body) {
        Ok(data) => data,
        Err(resp) => return resp,
    };
    match app.db.invenio_update_draft(&id, &data.to_string()) {
        Ok(Some(row)) => axum::Json(record_json(&app, &row, true)).into_response(),
        Ok(None) => not_found(),
        Err(e) => internal(e),
    }
}

async fn get_draft(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match draft_row(&app, &id) {
        Ok(row) => axum::Json(record_json(&app, &row, true)).into_response(),
        Err(resp) => resp,
    }
}

async fn delete_draft(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.db.invenio_delete_draft(&id) {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => not_found(),
        Err(e) => internal(e),
    }
}

fn file_json(app: &App, id: &str, f: &super::db::InvenioFile) -> Value {
    let base = format!(
        "{}/api/records/{id}/draft/files/{}",
        app.base_url,
        key_segment(&f.key)
    );
    let mut out = json!({
        "key": f.key,
        "status": f.status,
        "links": {"content": format!("{base}/content"), "commit": format!("{base}/commit")},
    });
    if let Some(size) = f.size {
        out["size"] = json!(size);
    }
    if let Some(md5) = &f.md5 {
        out["checksum"] = json!(md5);
    }
    out
}

async fn list_files(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if let Err(resp) = draft_row(&app, &id) {
        return resp;
    }
    match app.db.invenio_files(&id) {
        Ok(files) => {
            let entries: Vec<Value> = files.iter().map(|f| file_json(&app, &id, f)).collect();
            axum::Json(json!({"enabled": true, "entries": entries})).into_response()
        }
        Err(e) => internal(e),
    }
}

async fn init_files(State(app): State<Arc<App>>, Path(id): Path<String>, body: Bytes) -> Response {
    if let Err(resp) = draft_row(&app, &id) {
        return resp;
    }
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"status": 400, "message": "Expected a list of {\"key\": ...}."})),
        )
            .into_response();
    };
    for item in &items {
        let Some(key) = item.get("key").and_then(Value::as_str) else {
            return (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"status": 400, "message": "A file entry has no key.",
                    "errors": [{"field": "key", "messages": ["Missing data for required field."]}]})),
            )
                .into_response();
        };
        if let Err(e) = app.db.invenio_file_init(&id, key) {
            return internal(e);
        }
    }
    match app.db.invenio_files(&id) {
        Ok(files) => {
            let entries: Vec<Value> = files.iter().map(|f| file_json(&app, &id, f)).collect();
            (
                StatusCode::CREATED,
                axum::Json(json!({"enabled": true, "entries": entries})),
            )
                .into_response()
        }
        Err(e) => internal(e),
    }
}

/// `PUT .../draft/files/{key}/content`. The body is read here, not by an extractor, so
/// that a file over [`FILE_LIMIT`] is refused with what the limit is and where large
/// files go, not the framework's "length limit exceeded".
async fn put_content(
    State(app): State<Arc<App>>,
    Path((id, key)): Path<(String, String)>,
    body: axum::body::Body,
) -> Response {
    if let Err(resp) = draft_row(&app, &id) {
        return resp;
    }
    let Ok(body) = axum::body::to_bytes(body, FILE_LIMIT).await else {
        return message(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "{key} is larger than the {} MiB this InvenioRDM emulation keeps a file (it \
                 keeps files in its database; Zenodo takes up to 50 GB a record): deposit \
                 large files to the local sandbox target, which keeps them on disk",
                FILE_LIMIT >> 20
            ),
        );
    };
    app.counters
        .invenio_uploads
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match app.db.invenio_file_content(&id, &key, &body) {
        Ok(true) => {
            axum::Json(json!({"key": key, "status": "pending", "size": body.len()})).into_response()
        }
        Ok(false) => not_found(),
        Err(e) => internal(e),
    }
}

/// The files of a published record.
async fn list_published_files(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.db.invenio_get(&id) {
        Ok(Some(row)) if row.published => {}
        Ok(_) => return not_found(),
        Err(e) => return internal(e),
    }
    match app.db.invenio_files(&id) {
        Ok(files) => {
            let entries: Vec<Value> = files.iter().map(|f| file_json(&app, &id, f)).collect();
            axum::Json(json!({"enabled": true, "entries": entries})).into_response()
        }
        Err(e) => internal(e),
    }
}

/// The bytes of a published record's file.
async fn get_content(
    State(app): State<Arc<App>>,
    Path((id, key)): Path<(String, String)>,
) -> Response {
    match app.db.invenio_get(&id) {
        Ok(Some(row)) if row.published => {}
        Ok(_) => return not_found(),
        Err(e) => return internal(e),
    }
    file_content(&app, &id, &key)
}

/// The bytes of file `key` of record or draft `id`.
fn file_content(app: &App, id: &str, key: &str) -> Response {
    match app.db.invenio_file_bytes(id, key) {
        Ok(Some(bytes)) => {
            ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
        }
        Ok(None) => not_found(),
        Err(e) => internal(e),
    }
}

/// A draft's file, read back (a draft left for review is checked by its files too).
async fn get_draft_content(
    State(app): State<Arc<App>>,
    Path((id, key)): Path<(String, String)>,
) -> Response {
    if let Err(resp) = draft_row(&app, &id) {
        return resp;
    }
    file_content(&app, &id, &key)
}

async fn commit_file(
    State(app): State<Arc<App>>,
    Path((id, key)): Path<(String, String)>,
) -> Response {
    if let Err(resp) = draft_row(&app, &id) {
        return resp;
    }
    match app.db.invenio_file_commit(&id, &key) {
        Ok(Some(file)) => axum::Json(file_json(&app, &id, &file)).into_response(),
        Ok(None) => (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"status": 400, "message": format!("File '{key}' has no content to commit.")})),
        )
            .into_response(),
        Err(e) => internal(e),
    }
}

async fn publish(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let row = match draft_row(&app, &id) {
        Ok(row) => row,
        Err(resp) => return resp,
    };
    let data: Value = serde_json::from_str(&row.data).unwrap_or(Value::Null);
    let mut errors = validation_errors(&data);
    match app.db.invenio_files(&id) {
        Ok(files) => {
            if files.is_empty() {
                errors.push(json!({"field": "files.enabled", "messages": ["Missing uploaded files. To disable files for this record please mark it as metadata-only."]}));
            }
            for f in files.iter().filter(|f| f.status != "completed") {
                errors.push(json!({"field": "files", "messages": [format!("File '{}' is not committed.", f.key)]}));
            }
        }
        Err(e) => return internal(e),
    }
    if !errors.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(
                json!({"status": 400, "message": "A validation error occurred.", "errors": errors}),
            ),
        )
            .into_response();
    }
    match app.db.invenio_publish(&id) {
        Ok(_) if app.invenio_account().publish_times_out => message(
            StatusCode::GATEWAY_TIMEOUT,
            "Gateway Timeout: the request took too long (it may still have been done).",
        ),
        Ok(_) => match app.db.invenio_get(&id) {
            Ok(Some(row)) => (
                StatusCode::ACCEPTED,
                axum::Json(record_json(&app, &row, false)),
            )
                .into_response(),
            Ok(None) => not_found(),
            Err(e) => internal(e),
        },
        Err(e) => internal(e),
    }
}

#[derive(serde::Deserialize)]
struct Search {
    q: Option<String>,
    size: Option<usize>,
}

/// The user's records and drafts. `q` is matched as InvenioRDM's query string would for the
/// forms Lodge uses: `field:"value"` (the value must occur in that field) or plain text.
async fn user_records(State(app): State<Arc<App>>, Query(search): Query<Search>) -> Response {
    let rows = match app.db.invenio_all() {
        Ok(rows) => rows,
        Err(e) => return internal(e),
    };
    let needle = search.q.as_deref().map(|q| {
        let value = q.split_once(':').map(|(_, v)| v).unwrap_or(q);
        value.trim().trim_matches('"').to_string()
    });
    let hits: Vec<Value> = rows
        .iter()
        .filter(|row| {
            needle
                .as_deref()
                .is_none_or(|n| n.is_empty() || row.data.contains(n))
        })
        .take(search.size.unwrap_or(10).clamp(1, 100))
        .map(|row| record_json(&app, row, !row.published))
        .collect();
    let total = hits.len();
    axum::Json(json!({"hits": {"hits": hits, "total": total}})).into_response()
}

impl App {
    pub fn invenio_account(&self) -> InvenioAccount {
        self.invenio
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A draft's page at its `self_html` (`/uploads/{id}`, as InvenioRDM's upload form): what a
/// person reviews before publishing, the title, creators and files with their status. A
/// draft published since sends the browser on to its landing page. `None` if `id` is no
/// record of the emulation.
pub(crate) fn draft_page(app: &App, id: &str) -> Option<Response> {
    let row = app.db.invenio_get(id).ok()??;
    if row.published {
        return Some(axum::response::Redirect::to(&format!("/records/{}", row.id)).into_response());
    }
    let shown = Shown::of(&row);
    let files: String = app
        .db
        .invenio_files(&row.id)
        .unwrap_or_default()
        .iter()
        .map(|f| {
            format!(
                "<tr><td>{key}</td><td>{size}</td><td>{status}</td></tr>\n",
                key = escape(&f.key),
                size = human_bytes(f.size.unwrap_or(0).max(0) as u64),
                status = escape(&f.status),
            )
        })
        .collect();
    let title = &shown.title;
    Some(
        Html(page(
            title,
            &format!(
                "<h1>{title}</h1>
<p>Draft {id} · <strong>not published</strong>: nothing is public and no DOI is minted yet.</p>
<dl>
<dt>Creators</dt><dd>{creators}</dd>
<dt>Publisher</dt><dd>{publisher}</dd>
<dt>Files</dt><dd>{access} once published</dd>
</dl>
<h2>Files</h2>
<table>
<thead><tr><th>Name</th><th>Size</th><th>Status</th></tr></thead>
<tbody>
{files}</tbody>
</table>
<p>InvenioRDM emulation of Lodge's sandbox. Publish this draft as a site's Publish button
would, with the account's token: <code>curl -X POST -H 'Authorization: Bearer TOKEN'
http://HOST:PORT/api/records/{id}/draft/actions/publish</code> (this server's address); or
with a deposit of the same content (the same key) to this site without
<code>state=draft</code>. Lodge sees it published at its next deposit or check.</p>
<p><a href=\"/\">All records</a></p>",
                id = escape(&row.id),
                creators = shown.creators,
                publisher = shown.publisher,
                access = shown.files,
            ),
        ))
        .into_response(),
    )
}

/// What a record's or a draft's page shows of its metadata, escaped for HTML.
struct Shown {
    title: String,
    creators: String,
    publisher: String,
    date: String,
    /// Who may read the files: open, restricted, or embargoed until a date.
    files: String,
}

impl Shown {
    fn of(row: &InvenioRow) -> Shown {
        let data: Value = serde_json::from_str(&row.data).unwrap_or(Value::Null);
        let m = &data["metadata"];
        let text = |v: &Value| escape(v.as_str().unwrap_or(""));
        let creators: Vec<String> = m["creators"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| creator_name(&c["person_or_org"]))
                    .collect()
            })
            .unwrap_or_default();
        Shown {
            title: text(&m["title"]),
            creators: creators.join("; "),
            publisher: text(&m["publisher"]),
            date: text(&m["publication_date"]),
            files: files_access(&data["access"]),
        }
    }
}

/// A draft's or record's file access as its page says it.
fn files_access(access: &Value) -> String {
    match (access["files"].as_str(), &access["embargo"]) {
        (Some("restricted"), e) if e["active"].as_bool() == Some(true) => format!(
            "restricted, embargoed until {}",
            escape(e["until"].as_str().unwrap_or("?"))
        ),
        (Some("restricted"), _) => "restricted".into(),
        _ => "open".into(),
    }
}

/// A creator as the pages show it: "Family, Given" for a person sent by family and given
/// name (InvenioRDM fills `name` itself), else the name.
fn creator_name(p: &Value) -> String {
    match (p["family_name"].as_str(), p["given_name"].as_str()) {
        (Some(family), Some(given)) => escape(&format!("{family}, {given}")),
        _ => escape(p["name"].as_str().unwrap_or("")),
    }
}

/// A published record's landing page at `self_html` (`/records/{id}`, beside the sandbox's
/// own records): its title, creators, date, files, and the work's other versions; API
/// clients get the record's JSON there. `None` if `id` is no published record of the
/// emulation.
pub(crate) fn landing_page(app: &App, id: &str, html: bool) -> Option<Response> {
    let row = app.db.invenio_get(id).ok()??;
    if !row.published {
        return None;
    }
    if !html {
        return Some(axum::Json(record_json(app, &row, false)).into_response());
    }
    let shown = Shown::of(&row);
    let versions = app.db.invenio_versions(&row.parent).unwrap_or_default();
    let version_links: Vec<String> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let n = i + 1;
            if v.id == row.id {
                format!("<li>Version {n} (this one)</li>")
            } else {
                format!(
                    "<li><a href=\"/records/{id}\">Version {n}</a></li>",
                    id = escape(&v.id)
                )
            }
        })
        .collect();
    let index = versions
        .iter()
        .position(|v| v.id == row.id)
        .map_or(1, |i| i + 1);
    let files: String = app
        .db
        .invenio_files(&row.id)
        .unwrap_or_default()
        .iter()
        .map(|f| {
            format!(
                "<tr><td><a href=\"/api/records/{id}/files/{segment}/content\">{key}</a></td><td>{size}</td></tr>\n",
                id = escape(&row.id),
                segment = escape(&key_segment(&f.key)),
                key = escape(&f.key),
                size = human_bytes(f.size.unwrap_or(0).max(0) as u64),
            )
        })
        .collect();
    let title = &shown.title;
    Some(
        Html(page(
            title,
            &format!(
                "<h1>{title}</h1>
<p>Record {id} · version {index} of {count} · published {date}</p>
<dl>
<dt>Creators</dt><dd>{creators}</dd>
<dt>Publisher</dt><dd>{publisher}</dd>
<dt>Files</dt><dd>{access}</dd>
</dl>
<h2>Versions</h2>
<ul>
{versions}
</ul>
<h2>Files</h2>
<table>
<thead><tr><th>Name</th><th>Size</th></tr></thead>
<tbody>
{files}</tbody>
</table>
<p>InvenioRDM emulation of Lodge's sandbox. API clients get this record as JSON at this address.</p>
<p><a href=\"/\">All records</a></p>",
                id = escape(&row.id),
                count = versions.len().max(1),
                date = shown.date,
                creators = shown.creators,
                publisher = shown.publisher,
                access = shown.files,
                versions = version_links.join("\n"),
            ),
        ))
        .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_identifier_of_an_unknown_scheme_or_a_ror_that_is_none_is_refused() {
        let person = |scheme: &str, identifier: &str| {
            json!({"person_or_org": {
                "type": "organizational",
                "name": "CERN",
                "identifiers": [{"scheme": scheme, "identifier": identifier}],
            }})
        };
        let metadata = json!({
            "creators": [person("ror", "01ggx4157"), person("ror", "01ggx4158")],
            "contributors": [person("orcid", "0000-0002-1825-0097"), person("wikidata", "Q42")],
        });
        let errors = person_identifier_errors(&metadata);
        let said: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| {
                let field = e["field"].as_str().unwrap();
                (field, e["messages"][0].as_str().unwrap())
            })
            .collect();
        assert_eq!(
            said,
            [
                (
                    "metadata.creators.1.person_or_org.identifiers.0",
                    "Invalid ROR identifier '01ggx4158'."
                ),
                (
                    "metadata.contributors.1.person_or_org.identifiers.0",
                    "Invalid scheme."
                ),
            ]
        );
    }
}
