//! What the sandbox reads from a request — the key or digest in the path, `If-None-Match`,
//! `Authorization`, a record's body — through the very functions its handlers call
//! (`lodge::sandbox::requests`): never a panic, and what is accepted is consistent.
#![no_main]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, HeaderValue, header};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use lodge::sandbox::requests::{
    document_problems, if_none_match_star, is_api, parse_digest, parse_key, parse_record_body,
    record_condition, token_allows,
};

#[derive(Arbitrary, Debug)]
struct Request<'a> {
    path: &'a str,
    key: &'a str,
    if_none_match: Option<&'a [u8]>,
    authorization: Option<&'a [u8]>,
    token: Option<&'a str>,
    body: &'a [u8],
}

fuzz_target!(|request: Request<'_>| {
    let _ = is_api(request.path);

    // Path: a digest or key parses back to itself, in lowercase hex.
    if let Ok(digest) = parse_digest(request.key) {
        assert_eq!(digest.to_hex(), request.key.to_ascii_lowercase());
    }
    let key = parse_key(request.key);
    if let Ok(key) = &key {
        assert_eq!(key.to_hex(), request.key.to_ascii_lowercase());
    }

    // Headers: only values HTTP allows reach the handlers.
    let mut headers = HeaderMap::new();
    for (name, value) in [
        (header::IF_NONE_MATCH, request.if_none_match),
        (header::AUTHORIZATION, request.authorization),
    ] {
        if let Some(value) = value.and_then(|v| HeaderValue::from_bytes(v).ok()) {
            headers.insert(name, value);
        }
    }
    assert_eq!(
        record_condition(&headers).is_ok(),
        if_none_match_star(&headers) == Some(true)
    );
    if token_allows(&headers, request.token)
        && let Some(token) = request.token
    {
        // Allowed only with the token itself: as a bearer token, or as the password of
        // Basic credentials (any user name).
        let given = headers[header::AUTHORIZATION].to_str().unwrap();
        match given.strip_prefix("Bearer ") {
            Some(bearer) => assert_eq!(bearer.trim(), token),
            None => {
                let encoded = given.strip_prefix("Basic ").expect("Bearer or Basic");
                let decoded = STANDARD.decode(encoded.trim()).unwrap();
                let (_user, password) =
                    decoded.split_at(decoded.iter().position(|&b| b == b':').unwrap());
                assert_eq!(&password[1..], token.as_bytes());
            }
        }
    }

    // Body: a document, its problems, its key.
    if let Ok(document) = parse_record_body(request.body) {
        lodge_fuzz::check_document(&document);
        if let Ok(key) = key {
            let problems = document_problems(&key, &document);
            let names_key = problems.iter().any(|(field, _)| field == "key");
            assert_eq!(names_key, key != document.key());
        }
    }
});
