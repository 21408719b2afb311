//! What the sandbox reads out of a request before it touches its database or its blobs: the
//! digest or content key in the path, the `If-None-Match` and `Authorization` headers, and a
//! record's body with the problems that make it unacceptable. Pure functions, so that the
//! fuzz target `sandbox_request` (in `fuzz/`) runs exactly what the server runs.

use axum::http::{HeaderMap, StatusCode, header};

use crate::content::{ContentDocument, ContentKey, Sha256Hex};

/// A request refused before any work, with the one error entry the answer carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub field: &'static str,
    pub message: String,
}

fn bad_request(field: &'static str, message: String) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        field,
        message,
    }
}

/// The blob digest in `/blobs/sha256/{hex}`.
pub fn parse_digest(text: &str) -> Result<Sha256Hex, Refusal> {
    text.parse::<Sha256Hex>()
        .map_err(|e| bad_request("digest", e.to_string()))
}

/// The content key in `/records/{key}`.
pub fn parse_key(text: &str) -> Result<ContentKey, Refusal> {
    text.parse::<ContentKey>()
        .map_err(|e| bad_request("key", e.to_string()))
}

/// Whether the request asks "only if new" (`If-None-Match: *`); `None` without the header.
pub fn if_none_match_star(headers: &HeaderMap) -> Option<bool> {
    headers
        .get(header::IF_NONE_MATCH)
        .map(|v| v.to_str().map(|s| s.trim() == "*").unwrap_or(false))
}

/// A record is created once: its PUT must carry `If-None-Match: *` and nothing else.
pub fn record_condition(headers: &HeaderMap) -> Result<(), Refusal> {
    let message = match if_none_match_star(headers) {
        Some(true) => return Ok(()),
        Some(false) => {
            "records are created once: send `If-None-Match: *` (no other value is accepted)"
        }
        None => "records are created once: the header `If-None-Match: *` is required",
    };
    Err(Refusal {
        status: StatusCode::PRECONDITION_REQUIRED,
        field: "If-None-Match",
        message: message.into(),
    })
}

/// Equal-time comparison, so a secret cannot be guessed byte by byte from timings.
pub(crate) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The user name and password of `Authorization: Basic`, if the request has them: split at
/// the first colon, which a user name cannot hold (RFC 7617) and a password may.
pub fn basic_credentials(headers: &HeaderMap) -> Option<(Vec<u8>, Vec<u8>)> {
    use base64::Engine as _;
    let encoded = headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let mut decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|&b| b == b':')?;
    let password = decoded.split_off(colon + 1);
    decoded.pop();
    Some((decoded, password))
}

/// Whether the request may use the API: always without a `token`, else only with the token,
/// as `Authorization: Bearer TOKEN` (Lodge and scripts) or as the password of
/// `Authorization: Basic` under any user name (a web browser, which asks for a user name and
/// password when it meets a Basic challenge and knows nothing of bearer tokens).
pub fn token_allows(headers: &HeaderMap, token: Option<&str>) -> bool {
    let Some(token) = token else {
        return true;
    };
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match bearer {
        Some(given) => same_secret(given.trim().as_bytes(), token.as_bytes()),
        // The user name is not checked: a browser's prompt wants one.
        None => basic_credentials(headers)
            .is_some_and(|(_user, password)| same_secret(&password, token.as_bytes())),
    }
}

/// Whether a path is the API's (counted, guarded by the token and by faults) rather than a
/// page.
pub fn is_api(path: &str) -> bool {
    ["/blobs", "/records", "/dois", "/api"]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// A record's body as a content document.
pub fn parse_record_body(body: &[u8]) -> Result<ContentDocument, Refusal> {
    serde_json::from_slice(body).map_err(|e| Refusal {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        field: "body",
        message: format!(
            "not a Lodge content document ({{\"lodge\":1,\"manifest\":[...],\"metadata\":{{...}}}}): {e}"
        ),
    })
}

/// Every reason `doc` cannot become the record `key` that needs no look at the blobs, as
/// (field, message): the document's own problems, and a key that is not the document's.
pub fn document_problems(key: &ContentKey, doc: &ContentDocument) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = doc
        .problems()
        .into_iter()
        .map(|p| (p.field, p.message))
        .collect();
    let actual = doc.key();
    if actual != *key {
        out.push((
            "key".into(),
            format!(
                "the document's content key is {actual}, not {key} as named in the URL \
                 (send the canonical document the key was computed over)"
            ),
        ));
    }
    out
}
