//! HTTP handlers of the sandbox and the gate (counting, token, faults) in front of
//! `/blobs` and `/records`.
//!
//! Every error body is `{"errors":[{"field": ..., "message": ...}, ...]}`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, head};
use serde_json::{Value, json};

use super::blobs::BlobError;
use super::db::{Insert, RecordRow};
use super::faults::Fault;
use super::page;
use super::requests::{
    Refusal, document_problems, if_none_match_star, is_api, parse_digest, parse_key,
    parse_record_body, record_condition, token_allows,
};
use super::server::KillSwitch;
use super::state::App;
use crate::content::{ContentDocument, ContentKey, Sha256Hex};

/// Largest record body accepted (a manifest of a few hundred thousand files).
const RECORD_BODY_LIMIT: usize = 64 * 1024 * 1024;
const DEFAULT_PER_PAGE: u64 = 100;
const MAX_PER_PAGE: u64 = 1000;
/// Records listed on the HTML page.
const INDEX_PAGE_RECORDS: u64 = 1000;

type AppState = State<Arc<App>>;

pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/stats", get(stats))
        .route(
            "/blobs/sha256/{hex}",
            head(blob_head).get(blob_get).put(blob_put),
        )
        .route("/records", get(record_list))
        .route("/records/{key}", get(record_get).put(record_put))
        .route("/uploads/{id}", get(upload_page))
        .merge(super::datacite::router())
        .merge(super::invenio::router(app.clone()))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(app.clone(), gate))
        .with_state(app)
}

// ---------------------------------------------------------------------------------------------
// Responses

fn errors(status: StatusCode, problems: Vec<(String, String)>) -> Response {
    let list: Vec<Value> = problems
        .into_iter()
        .map(|(field, message)| json!({"field": field, "message": message}))
        .collect();
    (status, axum::Json(json!({ "errors": list }))).into_response()
}

fn error(status: StatusCode, field: &str, message: impl Into<String>) -> Response {
    errors(status, vec![(field.to_string(), message.into())])
}

pub(crate) fn internal_error(what: &str, e: impl std::fmt::Display) -> Response {
    internal(what, e)
}

fn internal(what: &str, e: impl std::fmt::Display) -> Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server",
        format!("{what}: {e}"),
    )
}

fn with_location(mut resp: Response, location: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp
}

fn record_ref(app: &App, row: &RecordRow) -> Value {
    json!({
        "identifier": row.identifier(),
        "url": app.record_url(&row.key),
        "key": row.key,
    })
}

/// Run blocking database or file work off the async threads.
async fn blocking<T: Send + 'static>(
    app: &Arc<App>,
    f: impl FnOnce(&App) -> T + Send + 'static,
) -> Result<T, Response> {
    let app = app.clone();
    tokio::task::spawn_blocking(move || f(&app))
        .await
        .map_err(|e| internal("database task failed", e))
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        error(self.status, self.field, self.message)
    }
}

fn bad_request(field: &'static str, message: String) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        field,
        message,
    }
}

// ---------------------------------------------------------------------------------------------
// Gate: counting, authentication, faults

fn authorized(app: &App, headers: &HeaderMap) -> bool {
    token_allows(headers, app.token.as_deref())
}

/// 401 for a sandbox started with `--token`, to a request that sent no token or (its
/// `headers` have an `Authorization`) another one: each is told which. Two challenges:
/// `Bearer` for API clients, and `Basic` so that a web browser opening a page or a record
/// (the window's *Open record*) asks for a password, the token, instead of showing this
/// error; browsers take the scheme they know.
fn needs_token(headers: &HeaderMap) -> Response {
    let message = if headers.contains_key(header::AUTHORIZATION) {
        "the token given was refused: it is not the one this sandbox was started with \
         (`lodge sandbox --token`, or LODGE_SANDBOX_TOKEN); in a browser, that token is the \
         password"
    } else {
        "this sandbox needs its token (`Authorization: Bearer TOKEN`; in a browser, the \
         token as password)"
    };
    let mut resp = error(StatusCode::UNAUTHORIZED, "authorization", message);
    let headers = resp.headers_mut();
    headers.insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"lodge-sandbox\""),
    );
    headers.append(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Lodge sandbox\", charset=\"UTF-8\""),
    );
    resp
}

/// Counting, authentication and faults in front of the APIs. A refusal of a request with a
/// body (an "exists", an error, an injected fault) may leave the body unread, after which the
/// server closes the connection: it says `Connection: close`, so a client does not send its
/// next request on a connection that is about to close.
async fn gate(state: AppState, req: Request, next: Next) -> Response {
    let has_body = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v != "0")
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    let mut resp = gate_api(state, req, next).await;
    if has_body && !resp.status().is_success() {
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

async fn gate_api(State(app): AppState, req: Request, next: Next) -> Response {
    if !is_api(req.uri().path()) {
        return next.run(req).await;
    }
    app.counters.requests.fetch_add(1, Ordering::Relaxed);
    // Drawn for every API request, so a seeded run meets the same faults in the same order.
    let decision = app
        .faults
        .decide(matches!(*req.method(), Method::PUT | Method::POST));
    if decision.latency_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(decision.latency_ms)).await;
    }
    // The DataCite and InvenioRDM emulations check their own credentials, as those
    // services do; a published InvenioRDM record's landing page is public, as on the site
    // (a findable DOI resolves to it).
    let path = req.uri().path();
    let token_protected = !(path.starts_with("/dois")
        || path.starts_with("/api")
        || (req.method() == Method::GET && is_invenio_record_page(path)));
    if token_protected && !authorized(&app, req.headers()) {
        return needs_token(req.headers());
    }
    let kill = req.extensions().get::<KillSwitch>().cloned();
    match (decision.fault, kill) {
        (Fault::None, _) => next.run(req).await,
        (Fault::Reset, Some(kill)) => kill.kill().await,
        (Fault::RateLimit { retry_after_secs }, _) => {
            let mut resp = error(
                StatusCode::TOO_MANY_REQUESTS,
                "request",
                format!("rate limited (injected fault): retry after {retry_after_secs} s"),
            );
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            resp
        }
        (Fault::FailBeforeCommit, _) | (Fault::Reset, None) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "request",
            "service unavailable (injected fault): nothing was committed",
        ),
        (Fault::TimeoutAfterCommit, _) => {
            drop(next.run(req).await);
            error(
                StatusCode::GATEWAY_TIMEOUT,
                "request",
                "gateway timeout (injected fault) after the write was committed",
            )
        }
        (Fault::DropAfterCommit, kill) => {
            let resp = next.run(req).await;
            match kill {
                Some(kill) => {
                    drop(resp);
                    kill.kill().await
                }
                None => resp,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pages

async fn not_found(method: Method, uri: axum::http::Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "path",
        format!("no such endpoint: {method} {}", uri.path()),
    )
}

/// The page listing the records: as private as the records themselves.
async fn index(State(app): AppState, headers: HeaderMap) -> Response {
    if !authorized(&app, &headers) {
        return needs_token(&headers);
    }
    let result = blocking(&app, |app| {
        let rows = app.db.page(0, INDEX_PAGE_RECORDS)?;
        let stats = app.stats();
        let emulations = page::EmulationHoldings {
            invenio: app.db.invenio_latest(INDEX_PAGE_RECORDS)?,
            invenio_total: app.db.count_invenio()?,
            dois: app.db.latest_dois(INDEX_PAGE_RECORDS)?,
            doi_total: app.db.count_dois()?,
        };
        Ok::<_, rusqlite::Error>(page::index(&rows, stats.records, &stats, &emulations))
    })
    .await;
    match result {
        Ok(Ok(html)) => Html(html).into_response(),
        Ok(Err(e)) => internal("cannot read the records", e),
        Err(resp) => resp,
    }
}

async fn stats(State(app): AppState) -> Response {
    match blocking(&app, |app| app.stats()).await {
        Ok(s) => axum::Json(s).into_response(),
        Err(resp) => resp,
    }
}

// ---------------------------------------------------------------------------------------------
// Blobs

async fn blob_head(State(app): AppState, Path(hex): Path<String>) -> Response {
    let digest = match parse_digest(&hex) {
        Ok(d) => d,
        Err(reject) => return reject.into_response(),
    };
    match app.blobs.size(&digest).await {
        Ok(Some(size)) => (StatusCode::OK, [(header::CONTENT_LENGTH, size)]).into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => internal("cannot read the blob", e),
    }
}

async fn blob_get(State(app): AppState, Path(hex): Path<String>) -> Response {
    let digest = match parse_digest(&hex) {
        Ok(d) => d,
        Err(reject) => return reject.into_response(),
    };
    match tokio::fs::File::open(app.blobs.path(&digest)).await {
        Ok(file) => {
            let size = file.metadata().await.map(|m| m.len()).unwrap_or(0);
            let body = Body::from_stream(tokio_util::io::ReaderStream::new(file));
            (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "application/octet-stream".to_string()),
                    (header::CONTENT_LENGTH, size.to_string()),
                ],
                body,
            )
                .into_response()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => error(
            StatusCode::NOT_FOUND,
            "blob",
            format!("blob sha256:{} is not stored", digest.to_hex()),
        ),
        Err(e) => internal("cannot read the blob", e),
    }
}

fn blob_exists(digest: &Sha256Hex) -> Response {
    error(
        StatusCode::PRECONDITION_FAILED,
        "blob",
        format!("blob sha256:{} already exists", digest.to_hex()),
    )
}

async fn blob_put(
    State(app): AppState,
    Path(hex): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let digest = match parse_digest(&hex) {
        Ok(d) => d,
        Err(reject) => return reject.into_response(),
    };
    let only_if_new = if_none_match_star(&headers) == Some(true);
    // Answer "exists" without reading the body at all.
    if only_if_new {
        match app.blobs.size(&digest).await {
            Ok(Some(_)) => return blob_exists(&digest),
            Ok(None) => {}
            Err(e) => return internal("cannot read the blob", e),
        }
    }
    match app.blobs.write(&digest, body).await {
        Ok(written) => {
            let location = format!("/blobs/sha256/{}", digest.to_hex());
            let body =
                json!({"digest": format!("sha256:{}", digest.to_hex()), "size": written.size});
            if written.new {
                with_location(
                    (StatusCode::CREATED, axum::Json(body)).into_response(),
                    &location,
                )
            } else if only_if_new {
                // Another upload of the same blob finished first.
                blob_exists(&digest)
            } else {
                (StatusCode::OK, axum::Json(body)).into_response()
            }
        }
        Err(e @ BlobError::Mismatch { .. }) => {
            error(StatusCode::BAD_REQUEST, "blob", e.to_string())
        }
        Err(e @ BlobError::Body(_)) => error(StatusCode::BAD_REQUEST, "body", e.to_string()),
        Err(e @ BlobError::Io(_)) => internal("cannot store the blob", e),
    }
}

// ---------------------------------------------------------------------------------------------
// Records

fn record_exists(app: &App, row: &RecordRow) -> Response {
    app.counters.conflicts.fetch_add(1, Ordering::Relaxed);
    (
        StatusCode::PRECONDITION_FAILED,
        axum::Json(record_ref(app, row)),
    )
        .into_response()
}

/// Every reason `doc` cannot become the record `key`, as (field, message): the document's
/// own, then every manifest entry whose blob is missing or of another size.
async fn record_problems(
    app: &App,
    key: &ContentKey,
    doc: &ContentDocument,
) -> Vec<(String, String)> {
    let mut out = document_problems(key, doc);
    for (i, entry) in doc.manifest.iter().enumerate() {
        let hex = entry.sha256.to_hex();
        match app.blobs.size(&entry.sha256).await {
            Ok(None) => out.push((
                format!("manifest[{i}].sha256"),
                format!(
                    "'{}': blob sha256:{hex} was not uploaded (PUT /blobs/sha256/{hex} first)",
                    entry.path
                ),
            )),
            Ok(Some(size)) if size != entry.size => out.push((
                format!("manifest[{i}].size"),
                format!(
                    "'{}': the manifest says {} bytes but blob sha256:{hex} has {size}",
                    entry.path, entry.size
                ),
            )),
            Ok(Some(_)) => {}
            Err(e) => out.push((
                format!("manifest[{i}].sha256"),
                format!("'{}': blob sha256:{hex} could not be read: {e}", entry.path),
            )),
        }
    }
    out
}

async fn record_put(
    State(app): AppState,
    Path(key_text): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let key = match parse_key(&key_text) {
        Ok(k) => k,
        Err(reject) => return reject.into_response(),
    };
    let key_hex = key.to_hex();
    if let Err(refusal) = record_condition(&headers) {
        return refusal.into_response();
    }
    // Exists wins: the body is irrelevant (and not read) when the key has a record.
    let lookup = {
        let key_hex = key_hex.clone();
        blocking(&app, move |app| app.db.find(&key_hex)).await
    };
    match lookup {
        Ok(Ok(Some(row))) => return record_exists(&app, &row),
        Ok(Ok(None)) => {}
        Ok(Err(e)) => return internal("cannot read the records", e),
        Err(resp) => return resp,
    }
    let bytes = match axum::body::to_bytes(body, RECORD_BODY_LIMIT).await {
        Ok(b) => b,
        Err(e) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body",
                format!(
                    "the record body could not be read (at most {RECORD_BODY_LIMIT} bytes): {e}"
                ),
            );
        }
    };
    let doc = match parse_record_body(&bytes) {
        Ok(d) => d,
        Err(refusal) => return refusal.into_response(),
    };
    let problems = record_problems(&app, &key, &doc).await;
    if !problems.is_empty() {
        return errors(StatusCode::UNPROCESSABLE_ENTITY, problems);
    }
    let title = doc.metadata.title.clone();
    let document = String::from_utf8(doc.canonical_json()).unwrap_or_default();
    let inserted = {
        let key_hex = key_hex.clone();
        blocking(&app, move |app| {
            let inserted = app.db.insert(&key_hex, &title, &document);
            // Counted with the commit, not with the answer: a client that hangs up while
            // the insert runs drops this handler, but the record exists all the same.
            if let Ok(Insert::Created(_)) = &inserted {
                app.counters.creates.fetch_add(1, Ordering::Relaxed);
            }
            inserted
        })
        .await
    };
    match inserted {
        Ok(Ok(Insert::Created(row))) => with_location(
            (StatusCode::CREATED, axum::Json(record_ref(&app, &row))).into_response(),
            &format!("/records/{key_hex}"),
        ),
        // A concurrent create of the same key committed first.
        Ok(Ok(Insert::Exists(row))) => record_exists(&app, &row),
        Ok(Err(e)) => internal("cannot create the record", e),
        Err(resp) => resp,
    }
}

/// Whether the request asks for a page (a browser opening a record's link, as Lodge's
/// *Open record* does) rather than the API's JSON, which is what any client gets unless it
/// names `text/html` in `Accept`.
/// Whether `path` is `/records/{id}` with an id of the InvenioRDM emulation's form
/// (`00000-00001`), not a content key (the sandbox's own records, which its token keeps).
fn is_invenio_record_page(path: &str) -> bool {
    path.strip_prefix("/records/").is_some_and(|id| {
        let (left, right) = id.split_once('-').unwrap_or_default();
        !left.is_empty()
            && !right.is_empty()
            && id.len() <= 32
            && (left.chars().chain(right.chars())).all(|c| c.is_ascii_alphanumeric())
    })
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// The page of a draft of the InvenioRDM emulation (a draft deposit's link, for review):
/// as private as the sandbox's records.
async fn upload_page(State(app): AppState, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if !authorized(&app, &headers) {
        return needs_token(&headers);
    }
    match blocking(&app, move |app| super::invenio::draft_page(app, &id)).await {
        Ok(Some(page)) => page,
        _ => error(
            StatusCode::NOT_FOUND,
            "draft",
            "no draft or record of the InvenioRDM emulation has this id".to_string(),
        ),
    }
}

async fn record_get(
    State(app): AppState,
    Path(key_text): Path<String>,
    headers: HeaderMap,
) -> Response {
    let key = match parse_key(&key_text) {
        Ok(k) => k.to_hex(),
        Err(reject) => {
            // Not a key: perhaps a record of the InvenioRDM emulation, whose landing pages
            // live here too (as InvenioRDM's do).
            let html = wants_html(&headers);
            let id = key_text.clone();
            return match blocking(&app, move |app| {
                super::invenio::landing_page(app, &id, html)
            })
            .await
            {
                Ok(Some(page)) => page,
                _ => reject.into_response(),
            };
        }
    };
    let found = {
        let key = key.clone();
        blocking(&app, move |app| app.db.find(&key)).await
    };
    match found {
        Ok(Ok(Some(row))) if wants_html(&headers) => {
            Html(page::record(&row, &app.record_url(&row.key))).into_response()
        }
        Ok(Ok(Some(row))) => {
            let document: Value = serde_json::from_str(&row.document).unwrap_or(Value::Null);
            axum::Json(json!({
                "identifier": row.identifier(),
                "url": app.record_url(&row.key),
                "key": row.key,
                "created_at": row.created_at,
                "document": document,
            }))
            .into_response()
        }
        Ok(Ok(None)) => error(
            StatusCode::NOT_FOUND,
            "key",
            format!("no record has the key {key}"),
        ),
        Ok(Err(e)) => internal("cannot read the records", e),
        Err(resp) => resp,
    }
}

fn positive(
    query: &HashMap<String, String>,
    name: &'static str,
    default: u64,
) -> Result<u64, Refusal> {
    match query.get(name) {
        None => Ok(default),
        Some(text) => match text.trim().parse::<u64>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(bad_request(
                name,
                format!("'{text}' is not a whole number of 1 or more"),
            )),
        },
    }
}

async fn record_list(
    State(app): AppState,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let page = match positive(&query, "page", 1) {
        Ok(n) => n,
        Err(reject) => return reject.into_response(),
    };
    let per_page = match positive(&query, "per_page", DEFAULT_PER_PAGE) {
        Ok(n) => n.min(MAX_PER_PAGE),
        Err(reject) => return reject.into_response(),
    };
    let offset = (page - 1).saturating_mul(per_page);
    let listed = blocking(&app, move |app| {
        Ok::<_, rusqlite::Error>((app.db.count_records()?, app.db.page(offset, per_page)?))
    })
    .await;
    match listed {
        Ok(Ok((total, rows))) => {
            let records: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({
                        "identifier": r.identifier(),
                        "key": r.key,
                        "title": r.title,
                        "created_at": r.created_at,
                        "url": app.record_url(&r.key),
                    })
                })
                .collect();
            axum::Json(json!({
                "records": records,
                "total": total,
                "page": page,
                "per_page": per_page,
            }))
            .into_response()
        }
        Ok(Err(e)) => internal("cannot read the records", e),
        Err(resp) => resp,
    }
}
