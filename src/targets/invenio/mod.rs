//! The InvenioRDM target, Zenodo included (Zenodo runs InvenioRDM): a draft, the three-step
//! file upload, publish.
//!
//! InvenioRDM has no idempotency key and no create-if-absent, so Lodge makes its own: the
//! content key goes into the draft's metadata as a subject `lodge:KEY`, and before creating
//! anything Lodge searches the user's records and drafts for it. Found published: the deposit
//! exists. Found a draft: resume it, skipping files already committed whose MD5 matches the
//! local file (read once for MD5 and SHA-256 together). Should two machines race and make two
//! drafts, the oldest wins and the other is discarded before anything is published. Publish
//! is never retried blindly: every attempt first re-reads what the server has. A new key of
//! a dataset deposited here before becomes the next version of its earlier record, once that
//! record is read to still carry the earlier key (not another dataset's, as on a site whose
//! records were reset).
//!
//! URL: `zenodo+https://sandbox.zenodo.org` or `invenio+https://HOST`; the token is a personal
//! access token (`--token` / `LODGE_TOKEN`, or stored with a named target). 429 and the
//! `X-RateLimit-*` headers are honoured. `?state=draft` stops short of publishing (publishing
//! mints a DOI and cannot be undone): each deposit is a draft with every file, to review and
//! publish in the web interface, or by a deposit to the same site without `state=draft`,
//! which finds that draft by its key and publishes it. Such a target is a scope of its own.
//!
//! Before a draft is made, a dataset's funding is linked to the site's funders and awards
//! (`vocabularies.rs`) and its communities are looked up; once the record is published,
//! each community is asked to include it (`communities.rs`).

mod communities;
mod vocabularies;

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use md5::Digest as _;
use reqwest::{Method, StatusCode, Url, header};
use serde_json::{Value, json};

use super::holdings::hash_body;
use super::stream::{FileSlice, file_body, refusal};
use super::{
    CONTENT_CHANGED, DepositRequest, EarlierRecord, Failure, FileHeld, Holdings, Landed,
    ProgressSink, ReadBack, RecordRef, Target,
};
use crate::content::{
    ContentDocument, ContentKey, Creator, FieldProblem, FileAccess, Funding, Location,
    ManifestEntry, Sha256Hex, ror_id, spdx_license_id,
};

/// The most files Zenodo takes in one record.
pub const ZENODO_MAX_FILES: usize = 100;

/// Subject that carries the content key in a draft's metadata.
pub fn key_subject(key: &ContentKey) -> String {
    format!("lodge:{key}")
}

/// The public page of record `id` on the InvenioRDM or Zenodo site whose target has identity
/// `scope_id` (its drafting target's or its publishing one's): `{site}/records/{id}`, the
/// `self_html` the site gives a published record. A draft published since (on the site's
/// own pages) is cited and linked by it: the draft's page (`/uploads/{id}`, what the deposit
/// recorded) is its owner's, behind a login on Zenodo. `None` for another kind of identity.
pub fn published_record_page(scope_id: &str, id: &str) -> Option<String> {
    let (kind, site) = scope_id.split_once('+')?;
    if !matches!(kind, "invenio" | "zenodo") {
        return None;
    }
    let site = site.split('?').next().unwrap_or(site);
    // As `InvenioTarget::new` keeps its base: the path ends in '/', so a join goes below it
    // (and the URL drops a default port the identity spells out).
    let mut base = Url::parse(site).ok()?;
    let path = base.path().trim_end_matches('/').to_string();
    base.set_path(&format!("{path}/"));
    base.join(&format!("records/{id}")).ok().map(String::from)
}

/// Client of one InvenioRDM instance.
pub struct InvenioTarget {
    base: Url,
    scope_id: String,
    kind: &'static str,
    token: Option<String>,
    /// Publish each record (the default), or leave it a draft (`state=draft`).
    publish: bool,
    http: reqwest::Client,
    /// Unix second before which the server's rate limit leaves no request.
    quiet_until: Mutex<u64>,
    /// What the site's funders and awards vocabularies, and its communities, said so far.
    vocabularies: Mutex<vocabularies::VocabularyAnswers>,
}

/// A record or draft found by the key search.
#[derive(Clone, Debug)]
struct Hit {
    id: String,
    published: bool,
    created: String,
    html: Option<String>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

/// InvenioRDM's resource type ids for DataCite's general types.
fn resource_type(general: &str) -> &'static str {
    match general {
        "Dataset" => "dataset",
        "Software" => "software",
        "Image" => "image",
        "Audiovisual" => "video",
        "Text" | "JournalArticle" | "Preprint" | "Report" | "Book" | "BookChapter" => "publication",
        "Workflow" => "workflow",
        "Model" => "model",
        "PhysicalObject" => "physicalobject",
        _ => "other",
    }
}

fn creator(c: &Creator) -> Value {
    let mut person = match c.person_names() {
        // One name alone ("Zhang,"): a family name and no given name, not an empty one.
        Some((family, "")) => json!({"type": "personal", "family_name": family}),
        Some((family, given)) => json!({
            "type": "personal",
            "family_name": family,
            "given_name": given,
        }),
        None => json!({"type": "organizational", "name": c.name}),
    };
    let mut identifiers = Vec::new();
    if let Some(orcid) = &c.orcid {
        identifiers.push(json!({"scheme": "orcid", "identifier": orcid}));
    }
    // An organisation's own ROR, by its id, as InvenioRDM writes one.
    if let Some(ror) = &c.ror {
        identifiers.push(json!({"scheme": "ror", "identifier": ror_id(ror)}));
    }
    if !identifiers.is_empty() {
        person["identifiers"] = json!(identifiers);
    }
    let mut out = json!({ "person_or_org": person });
    // Each by its name, in the order given; those with a ROR the site lists are linked
    // to its affiliations before the draft is made (`link_affiliations`).
    if !c.affiliations.is_empty() {
        let names: Vec<Value> = c
            .affiliations
            .iter()
            .map(|a| json!({"name": a.name}))
            .collect();
        out["affiliations"] = json!(names);
    }
    out
}

/// The draft body: InvenioRDM metadata, with the content key as a subject of Lodge's.
pub fn draft_body(key: &ContentKey, document: &ContentDocument) -> Value {
    let m = &document.metadata;
    let mut subjects: Vec<Value> = (m.keywords_once().into_iter())
        .map(|k| json!({"subject": k}))
        .collect();
    subjects.push(json!({"subject": key_subject(key)}));
    let mut metadata = json!({
        "title": m.title,
        "creators": m.creators.iter().map(creator).collect::<Vec<_>>(),
        "publication_date": m.publication_year.map(|y| y.to_string()),
        "resource_type": {"id": resource_type(&m.resource_type)},
        "publisher": m.publisher,
        "subjects": subjects,
    });
    // InvenioRDM renders descriptions as HTML: plain text is sent as paragraphs.
    if let Some(d) = &m.description {
        metadata["description"] = json!(crate::targets::description::as_html(d));
    }
    if let Some(methods) = &m.methods {
        // The description types vocabulary: DataCite's, in lower case.
        let methods = crate::targets::description::as_html(methods);
        metadata["additional_descriptions"] =
            json!([{"description": methods, "type": {"id": "methods"}}]);
    }
    if let Some(l) = &m.license {
        // The license vocabulary holds SPDX identifiers, lower-cased; a license that is not
        // one goes as a custom right, by its text.
        metadata["rights"] = match spdx_license_id(l) {
            Some(id) => json!([{"id": id.to_lowercase()}]),
            None => json!([{"title": {"en": l}}]),
        };
    }
    if let Some(v) = &m.version {
        metadata["version"] = json!(v);
    }
    if let Some(language) = &m.language {
        // The languages vocabulary: ISO 639-3 codes, as the language is keyed.
        metadata["languages"] = json!([{"id": language}]);
    }
    // A work whose identifier is neither a DOI nor a URL is a metadata problem, and
    // metadata with a problem is refused before it is queued; none is left out here.
    let related: Vec<Value> = m
        .related
        .iter()
        .filter_map(|r| {
            Some(json!({
                "identifier": r.identifier,
                "scheme": r.scheme()?.invenio(),
                // The relation types vocabulary: DataCite's names, in lower case.
                "relation_type": {"id": r.relation.to_lowercase()},
            }))
        })
        .collect();
    if !related.is_empty() {
        metadata["related_identifiers"] = json!(related);
    }
    if !m.dates.is_empty() {
        let dates = m.dates.iter().map(|d| {
            // The date types vocabulary: DataCite's names, in lower case; the date in EDTF,
            // which a date or a range of Lodge's is.
            json!({"date": d.date, "type": {"id": d.date_type.to_lowercase()}})
        });
        metadata["dates"] = json!(dates.collect::<Vec<_>>());
    }
    if !m.locations.is_empty() {
        let features = m.locations.iter().flat_map(location_features);
        metadata["locations"] = json!({"features": features.collect::<Vec<_>>()});
    }
    if !m.contributors.is_empty() {
        let contributors = m.contributors.iter().map(|c| {
            let mut contributor = creator(&c.person());
            // The roles vocabulary: DataCite's contributor types, in lower case.
            contributor["role"] = json!({"id": c.role.to_lowercase()});
            contributor
        });
        metadata["contributors"] = json!(contributors.collect::<Vec<_>>());
    }
    if !m.funding.is_empty() {
        metadata["funding"] = json!(m.funding.iter().map(funding).collect::<Vec<_>>());
    }
    json!({
        "metadata": metadata,
        "access": access(&m.access),
        "files": {"enabled": true},
    })
}

/// One funder and its award as InvenioRDM takes them without its vocabularies: the funder
/// by name, the award by its number and title (in English, as a custom license is); an
/// award with only one of them is left out. The target sends the funding linked to the
/// site's vocabularies where it can (`vocabularies.rs`), and refuses an award it can send
/// neither way.
fn funding(f: &Funding) -> Value {
    let mut entry = json!({"funder": {"name": f.funder}});
    if let (Some(number), Some(title)) = (&f.award_number, &f.award_title) {
        entry["award"] = json!({"number": number, "title": {"en": title}});
    }
    entry
}

/// One location as InvenioRDM's GeoJSON features, each with the place's name: its point and
/// its box a feature each (a feature has one geometry), a name alone a feature without one.
/// GeoJSON has no box: it is a polygon of its corners, or two when it crosses the 180th
/// meridian (its west bound east of its east bound), one on each side, as RFC 7946 asks.
fn location_features(l: &Location) -> Vec<Value> {
    let ring = |w: f64, s: f64, e: f64, n: f64| json!([[[w, s], [e, s], [e, n], [w, n], [w, s]]]);
    let mut geometries = Vec::new();
    if let Some((latitude, longitude)) = l.point() {
        geometries.push(json!({"type": "Point", "coordinates": [longitude, latitude]}));
    }
    if let Some(b) = l.geo_box() {
        geometries.push(match b.west > b.east {
            false => {
                json!({"type": "Polygon", "coordinates": ring(b.west, b.south, b.east, b.north)})
            }
            true => json!({
                "type": "MultiPolygon",
                "coordinates": [
                    ring(b.west, b.south, 180.0, b.north),
                    ring(-180.0, b.south, b.east, b.north),
                ],
            }),
        });
    }
    if geometries.is_empty() {
        return vec![json!({"place": l.place})];
    }
    let featured = geometries.into_iter().map(|geometry| {
        let mut feature = json!({"geometry": geometry});
        if !l.place.is_empty() {
            feature["place"] = json!(l.place);
        }
        feature
    });
    featured.collect()
}

/// InvenioRDM's `access`: the record (its metadata) is public in every case; the files
/// are public, restricted, or restricted under an embargo that opens them on its date.
fn access(files: &FileAccess) -> Value {
    match files {
        FileAccess::Open => json!({"record": "public", "files": "public"}),
        FileAccess::Restricted => json!({"record": "public", "files": "restricted"}),
        FileAccess::Embargoed { until } => json!({
            "record": "public",
            "files": "restricted",
            "embargo": {"active": true, "until": until},
        }),
    }
}

/// MD5 and SHA-256 of a file in one read pass.
fn md5_and_sha256(path: &std::path::Path) -> std::io::Result<(String, Sha256Hex)> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path)?;
    let mut md5 = md5::Md5::new();
    let mut sha = sha2::Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        md5.update(&buf[..n]);
        sha2::Digest::update(&mut sha, &buf[..n]);
    }
    Ok((
        format!("md5:{}", hex::encode(md5.finalize())),
        Sha256Hex(sha2::Digest::finalize(sha).into()),
    ))
}

impl InvenioTarget {
    /// `kind` is `zenodo` or `invenio`; `rest` the part after `KIND+`.
    pub fn new(kind: &'static str, rest: &str, token: Option<String>) -> Result<Self, String> {
        let mut base = Url::parse(rest).map_err(|e| format!("{rest}: {e}"))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(format!("the scheme must be https, not '{}'", base.scheme()));
        }
        let host = base
            .host_str()
            .ok_or_else(|| "it names no host".to_string())?
            .to_ascii_lowercase();
        super::http::check_transport(&base, false)?;
        let port = base
            .port_or_known_default()
            .ok_or_else(|| "it names no port".to_string())?;
        super::http::check_url_options(base.query(), &["state"])?;
        let state = base
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned());
        let publish = match state.as_deref() {
            None | Some("publish") => true,
            Some("draft") => false,
            Some(other) => {
                return Err(format!(
                    "state '{other}' is not one of draft (each record left a draft, to review \
                     and publish yourself) or publish (the default)"
                ));
            }
        };
        let path = base.path().trim_end_matches('/').to_string();
        // The site's address, as its pages have it: Lodge adds the API's `/api` itself (with
        // it twice, every request is a 404).
        if let Some(site_path) = path.strip_suffix("/api") {
            let mut site = base.clone();
            site.set_query(None);
            site.set_path(site_path);
            let site = format!("{kind}+{}", site.as_str().trim_end_matches('/'));
            return Err(format!(
                "give the site's address without /api (Lodge adds it): {site}"
            ));
        }
        base.set_path(&format!("{path}/"));
        base.set_query(None);
        let http = super::http::client()?;
        // Drafts are another deposit than published records: publishing a key's draft is
        // not a replay of it. Published records keep the identity they always had.
        let state_part = if publish { "" } else { "?state=draft" };
        Ok(InvenioTarget {
            scope_id: format!("{kind}+{}://{host}:{port}{path}{state_part}", base.scheme()),
            base,
            kind,
            token,
            publish,
            http,
            quiet_until: Mutex::new(0),
            vocabularies: Mutex::default(),
        })
    }

    /// Zenodo, or InvenioRDM for any other site of it.
    fn site_name(&self) -> &'static str {
        if self.kind == "zenodo" {
            "Zenodo"
        } else {
            "InvenioRDM"
        }
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            let mut path = url.path_segments_mut().expect("http URL");
            path.pop_if_empty();
            for s in segments {
                path.push(s);
            }
        }
        url
    }

    /// Send a request, waiting first if the server's rate limit is used up, and remember
    /// what its `X-RateLimit-*` headers say.
    async fn send(
        &self,
        method: Method,
        url: Url,
        body: Option<reqwest::Body>,
        json: bool,
    ) -> Result<reqwest::Response, Failure> {
        self.send_watched(method, url, body, json, None).await
    }

    /// [`Self::send`] of a request whose body is a file's, `file` watching it: sent for as
    /// long as the upload makes progress ([`super::http::execute`]).
    async fn send_watched(
        &self,
        method: Method,
        url: Url,
        body: Option<reqwest::Body>,
        json: bool,
        file: Option<&super::stream::BodyWatch>,
    ) -> Result<reqwest::Response, Failure> {
        let wait = {
            let until = *self.quiet_until.lock().unwrap_or_else(|e| e.into_inner());
            until.saturating_sub(now_secs())
        };
        if wait > 0 {
            tokio::time::sleep(Duration::from_secs(wait.min(120))).await;
        }
        let mut rb = self.http.request(method, url);
        if let Some(token) = &self.token {
            rb = rb.bearer_auth(token);
        }
        if let Some(body) = body {
            rb = rb
                .header(
                    header::CONTENT_TYPE,
                    if json {
                        "application/json"
                    } else {
                        "application/octet-stream"
                    },
                )
                .body(body);
        }
        let request = rb.build().map_err(|e| Failure::from_reqwest(&e))?;
        let resp = super::http::execute(&self.http, request, file).await?;
        let number = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok())
        };
        if let (Some(0), Some(reset)) =
            (number("x-ratelimit-remaining"), number("x-ratelimit-reset"))
        {
            *self.quiet_until.lock().unwrap_or_else(|e| e.into_inner()) = reset;
        }
        Ok(resp)
    }

    async fn failure_of(resp: reqwest::Response) -> Failure {
        if resp.status().is_redirection() {
            // Named with where it points, as every target names it.
            return super::http::failure_of(resp).await;
        }
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .or_else(|| {
                // No Retry-After: the rate limit's reset time says how long.
                resp.headers()
                    .get("x-ratelimit-reset")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .map(|reset| reset.saturating_sub(now_secs()).to_string())
            });
        let body = resp.text().await.unwrap_or_default();
        Failure::from_status(status, retry_after.as_deref(), &body)
    }

    async fn json_of(resp: reqwest::Response, what: &str) -> Result<Value, Failure> {
        let status = resp.status().as_u16();
        resp.json().await.map_err(|e| Failure::Ambiguous {
            status: Some(status),
            message: format!("unreadable {what} response: {e}"),
        })
    }

    /// Records and drafts of the user carrying `key`, oldest first.
    async fn find(&self, key: &ContentKey) -> Result<Vec<Hit>, Failure> {
        let mut url = self.url(&["api", "user", "records"]);
        url.query_pairs_mut()
            .append_pair(
                "q",
                &format!("metadata.subjects.subject:\"{}\"", key_subject(key)),
            )
            .append_pair("size", "25");
        let resp = self.send(Method::GET, url, None, false).await?;
        if resp.status() != StatusCode::OK {
            return Err(Self::failure_of(resp).await);
        }
        let body = Self::json_of(resp, "search").await?;
        let subject = key_subject(key);
        let mut hits: Vec<Hit> = body["hits"]["hits"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            // The search is full text; keep only exact carriers of the key.
            .filter(|h| {
                h["metadata"]["subjects"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|s| s["subject"] == subject.as_str()))
            })
            .filter_map(|h| {
                Some(Hit {
                    id: h["id"].as_str()?.to_string(),
                    published: h["is_published"].as_bool().unwrap_or(false),
                    created: h["created"].as_str().unwrap_or("").to_string(),
                    html: h["links"]["self_html"].as_str().map(str::to_string),
                })
            })
            .collect();
        hits.sort_by(|a, b| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
        Ok(hits)
    }

    fn record_ref(hit: &Hit) -> RecordRef {
        RecordRef {
            identifier: hit.id.clone(),
            url: hit.html.clone(),
        }
    }

    /// A draft for `request`: the next version of its earlier record where it has one,
    /// else a new record.
    async fn create_draft(&self, request: &DepositRequest<'_>) -> Result<String, Failure> {
        // Worked out before anything is made: funding the site cannot take refuses the
        // deposit with nothing left behind.
        let body = self.draft_json(request).await?;
        for earlier in request.earlier_records {
            self.refuse_if_another_datasets(earlier, request).await?;
            let id = earlier.identifier.as_str();
            if let Some(draft) = self.new_version_draft(id, request, &body).await? {
                return Ok(draft);
            }
            if self.is_unpublished_draft(id).await? {
                return Err(self.earlier_draft_unpublished(id));
            }
            // Gone (a draft discarded, a record deleted, another account's): an older
            // version of the same work may still be there.
        }
        self.create_record_draft(body).await
    }

    /// The draft's body for `request`: [`draft_body`], its funding linked to the site's
    /// funders and awards, and its affiliations to the site's affiliations, where they
    /// know them.
    async fn draft_json(&self, request: &DepositRequest<'_>) -> Result<String, Failure> {
        let mut body = draft_body(&request.key, request.document);
        let funding = &request.document.metadata.funding;
        if !funding.is_empty() {
            body["metadata"]["funding"] = self.linked_funding(funding).await?;
        }
        self.link_affiliations(&mut body, &request.document.metadata)
            .await?;
        // Asked to include the record once it is published; a community the site does not
        // have is said now.
        self.community_ids(&request.document.metadata.communities)
            .await?;
        Ok(body.to_string())
    }

    /// The newest of the records of the dataset's earlier keys that is still a published
    /// record here: the one a new version was made of ([`InvenioTarget::create_draft`]
    /// passes over those gone). Said in the log only, so a server that cannot be asked
    /// gives the newest.
    async fn newest_earlier_record(&self, request: &DepositRequest<'_>) -> Option<String> {
        for earlier in request.earlier_records {
            let earlier = &earlier.identifier;
            let asked = self
                .send(
                    Method::GET,
                    self.url(&["api", "records", earlier]),
                    None,
                    false,
                )
                .await;
            match asked.map(|r| r.status()) {
                Ok(StatusCode::OK) | Err(_) => return Some(earlier.clone()),
                Ok(_) => continue,
            }
        }
        request.earlier_record().map(str::to_string)
    }

    /// Refused when `earlier`, a record Lodge made of this dataset's earlier content, is a
    /// published record that no longer carries that content's key (its subject `lodge:KEY`):
    /// a site whose records were reset gives the id again to another's, and a new version
    /// of it would join the dataset to someone else's work. One GET before the new version
    /// is asked for; a record not there (gone, a draft, another account's) is left to
    /// [`InvenioTarget::create_draft`], as before.
    async fn refuse_if_another_datasets(
        &self,
        earlier: &EarlierRecord,
        request: &DepositRequest<'_>,
    ) -> Result<(), Failure> {
        let id = earlier.identifier.as_str();
        let resp = self
            .send(Method::GET, self.url(&["api", "records", id]), None, false)
            .await?;
        match resp.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND | StatusCode::GONE | StatusCode::FORBIDDEN => return Ok(()),
            _ => return Err(Self::failure_of(resp).await),
        }
        let record = Self::json_of(resp, "record").await?;
        let subject = key_subject(&earlier.key);
        let carried = record["metadata"]["subjects"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["subject"] == subject.as_str()));
        if carried {
            return Ok(());
        }
        let page = record["links"]["self_html"]
            .as_str()
            .map(|page| format!(" ({page})"))
            .unwrap_or_default();
        let folder = shlex::try_quote(&request.root.to_string_lossy())
            .map(|f| f.into_owned())
            .unwrap_or_default();
        Err(Failure::Conflict {
            message: format!(
                "record {id} here is no longer this dataset's: Lodge made it of the \
                 dataset's earlier content, whose subject {subject} it does not carry now \
                 (the site's records were reset and its ids given again, or the subject was \
                 taken off at the site), so this content is not made its next version. If \
                 {id}{page} is this dataset's record, put the subject {subject} back on it \
                 there, then deposit again; if not, take the dataset off the list and add \
                 its folder again (lodge remove {folder}, then lodge add {folder}: its \
                 metadata comes back), and its next deposit is a record of its own"
            ),
        })
    }

    /// Whether `id` is a draft never published (a drafting target's earlier deposit, not
    /// reviewed yet): a record takes a new version only once published.
    async fn is_unpublished_draft(&self, id: &str) -> Result<bool, Failure> {
        let resp = self
            .send(
                Method::GET,
                self.url(&["api", "records", id, "draft"]),
                None,
                false,
            )
            .await?;
        match resp.status() {
            StatusCode::OK => {
                let draft = Self::json_of(resp, "draft").await?;
                Ok(draft["is_published"] != true)
            }
            StatusCode::NOT_FOUND | StatusCode::GONE | StatusCode::FORBIDDEN => Ok(false),
            _ => Err(Self::failure_of(resp).await),
        }
    }

    /// The dataset's earlier key made draft `earlier` here, still unpublished, so this key
    /// cannot be its next version: a record of its own would start a second work (a second
    /// concept DOI once published) beside it. A person decides which to keep.
    fn earlier_draft_unpublished(&self, earlier: &str) -> Failure {
        // The draft's page, where it is published or discarded (the window's Open record
        // on the earlier deposit opens it too).
        let page = self
            .base
            .join(&format!("uploads/{earlier}"))
            .map(|u| u.to_string())
            .unwrap_or_else(|_| earlier.to_string());
        Failure::Conflict {
            message: format!(
                "this dataset's earlier content is draft {earlier} here, not published yet, \
                 and a record takes a new version only once published: publish {earlier} \
                 ({page}), then deposit again to make this \
                 content its next version; or, if {earlier} should not be published, \
                 discard it on its page, then deposit again: this content then follows the \
                 latest published version of the dataset here, or is a record of its own \
                 where none was published"
            ),
        }
    }

    /// A draft new version of `earlier` carrying `request`'s metadata, or `None` when
    /// `earlier` is not there to be versioned (deleted, or another account's): the deposit
    /// then makes a record of its own.
    ///
    /// A work has at most one draft version, and asking again returns it: that is how an
    /// attempt that stopped after asking finds its draft again (it still carries the
    /// earlier version's metadata, and no files). A draft version with files and another
    /// key is someone's work in progress (started in the web interface, say): it is not
    /// taken over, and the deposit is a conflict for a person to settle.
    async fn new_version_draft(
        &self,
        earlier: &str,
        request: &DepositRequest<'_>,
        body: &str,
    ) -> Result<Option<String>, Failure> {
        let resp = self
            .send(
                Method::POST,
                self.url(&["api", "records", earlier, "versions"]),
                None,
                false,
            )
            .await?;
        match resp.status() {
            StatusCode::CREATED | StatusCode::OK => {}
            StatusCode::NOT_FOUND | StatusCode::GONE | StatusCode::FORBIDDEN => return Ok(None),
            _ => return Err(Self::failure_of(resp).await),
        }
        let draft = Self::json_of(resp, "new version").await?;
        let Some(id) = draft["id"].as_str().map(str::to_string) else {
            return Err(Failure::Ambiguous {
                status: Some(201),
                message: "the new version's draft has no id".into(),
            });
        };
        let subject = key_subject(&request.key);
        let ours = draft["metadata"]["subjects"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["subject"] == subject.as_str()));
        if !ours && !self.draft_files(&id).await?.is_empty() {
            return Err(Failure::Conflict {
                message: format!(
                    "record {earlier} has a draft new version, {id}, with files and another \
                     dataset's content (started in the web interface?); a record has one \
                     draft version at a time: publish or discard {id}, then deposit again"
                ),
            });
        }
        let resp = self
            .send(
                Method::PUT,
                self.url(&["api", "records", &id, "draft"]),
                Some(body.to_string().into()),
                true,
            )
            .await?;
        if !resp.status().is_success() {
            return Err(Self::failure_of(resp).await);
        }
        Ok(Some(id))
    }

    /// The file entries of a draft (key, status, checksum), as its file list gives them.
    async fn draft_files(&self, draft: &str) -> Result<Vec<Value>, Failure> {
        self.file_entries(&["api", "records", draft, "draft", "files"])
            .await
    }

    /// The entries (key, size, status, checksum) of the file list at `path`: a draft's or a
    /// published record's.
    async fn file_entries(&self, path: &[&str]) -> Result<Vec<Value>, Failure> {
        let resp = self.send(Method::GET, self.url(path), None, false).await?;
        if resp.status() != StatusCode::OK {
            return Err(Self::failure_of(resp).await);
        }
        let listing = Self::json_of(resp, "file list").await?;
        Ok(listing["entries"].as_array().cloned().unwrap_or_default())
    }

    /// What a published record (or, `draft`, a draft) holds of each manifest file, from its
    /// file list (key, size) or, with [`ReadBack::Bytes`], each file's content read back and
    /// hashed.
    async fn record_files(
        &self,
        record: &str,
        draft: bool,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Vec<(String, FileHeld)>, Failure> {
        let listing: &[&str] = match draft {
            true => &["api", "records", record, "draft", "files"],
            false => &["api", "records", record, "files"],
        };
        let sizes: std::collections::HashMap<String, u64> = self
            .file_entries(listing)
            .await?
            .iter()
            .filter_map(|e| Some((e["key"].as_str()?.to_string(), e["size"].as_u64()?)))
            .collect();
        let mut files = Vec::with_capacity(document.manifest.len());
        for entry in &document.manifest {
            let held = match (sizes.get(&entry.path), read) {
                (None, _) => FileHeld::Missing,
                (Some(&size), ReadBack::Sizes) => FileHeld::Present { size, sha256: None },
                (Some(_), ReadBack::Bytes) => {
                    let mut path = listing.to_vec();
                    path.extend([entry.path.as_str(), "content"]);
                    let url = self.url(&path);
                    let resp = self.send(Method::GET, url, None, false).await?;
                    match resp.status() {
                        StatusCode::OK => hash_body(resp, progress).await?,
                        StatusCode::NOT_FOUND => FileHeld::Missing,
                        _ => return Err(Self::failure_of(resp).await),
                    }
                }
            };
            files.push((entry.path.clone(), held));
        }
        Ok(files)
    }

    /// A new record's draft, of `body`.
    async fn create_record_draft(&self, body: String) -> Result<String, Failure> {
        let resp = self
            .send(
                Method::POST,
                self.url(&["api", "records"]),
                Some(body.into()),
                true,
            )
            .await?;
        if resp.status() != StatusCode::CREATED {
            return Err(Self::failure_of(resp).await);
        }
        let draft = Self::json_of(resp, "draft").await?;
        draft["id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Failure::Ambiguous {
                status: Some(201),
                message: "the new draft has no id".into(),
            })
    }

    /// Send every file the draft lacks: init, content, commit; skip committed files whose
    /// MD5 matches the local file.
    async fn send_files(
        &self,
        draft: &str,
        request: &DepositRequest<'_>,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        let on_server: std::collections::HashMap<String, (String, Option<String>)> = self
            .draft_files(draft)
            .await?
            .into_iter()
            .filter_map(|e| {
                Some((
                    e["key"].as_str()?.to_string(),
                    (
                        e["status"].as_str().unwrap_or("").to_string(),
                        e["checksum"].as_str().map(str::to_string),
                    ),
                ))
            })
            .collect();
        let missing: Vec<&ManifestEntry> = request
            .document
            .manifest
            .iter()
            .filter(|e| !on_server.contains_key(&e.path))
            .collect();
        self.init_files(draft, &missing).await?;
        for entry in &request.document.manifest {
            let md5 = Self::local_md5(request, entry).await?;
            if let Some((status, Some(checksum))) = on_server.get(&entry.path)
                && status == "completed"
                && *checksum == md5
            {
                progress(entry.size);
                continue;
            }
            self.send_file(draft, request, entry, &md5, progress)
                .await?;
        }
        Ok(())
    }

    /// The MD5 of `entry`'s file in the dataset's folder (what InvenioRDM checksums), once
    /// its SHA-256 is checked to be the scanned one.
    async fn local_md5(
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
    ) -> Result<String, Failure> {
        let path = crate::content::on_disk(request.root, &entry.path);
        let local = {
            let path = path.clone();
            tokio::task::spawn_blocking(move || md5_and_sha256(&path))
                .await
                .map_err(|e| Failure::Ambiguous {
                    status: None,
                    message: e.to_string(),
                })?
        };
        let (md5, sha) =
            local.map_err(|e| Failure::reading_local_file(&path, "cannot read it any more", &e))?;
        if sha != entry.sha256 {
            return Err(Failure::Changed {
                path: path.display().to_string(),
                message: format!("{CONTENT_CHANGED} (SHA-256 now {sha})"),
            });
        }
        Ok(md5)
    }

    /// Put the files `lost` back into the draft `draft` a deposit left for review, and
    /// nothing else: no other draft is made, and a file a person changed there stays.
    async fn put_back_into_draft(
        &self,
        draft: &str,
        request: &DepositRequest<'_>,
        lost: &[String],
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        // Published since (a published record being edited has a draft too, whose files
        // are locked), or discarded.
        if !self.is_unpublished_draft(draft).await? {
            return Err(Failure::Conflict {
                message: format!(
                    "{draft} is no longer a draft waiting for review (published or discarded \
                     since), and a published record's files cannot change: ask the \
                     repository's support to restore the file from their copy"
                ),
            });
        }
        let there: std::collections::HashSet<String> = self
            .draft_files(draft)
            .await?
            .iter()
            .filter_map(|e| e["key"].as_str().map(str::to_string))
            .collect();
        // Put back since (by a person, or by another repair): nothing to send.
        let entries: Vec<&ManifestEntry> = request
            .document
            .manifest
            .iter()
            .filter(|e| lost.contains(&e.path) && !there.contains(&e.path))
            .collect();
        self.init_files(draft, &entries).await?;
        for entry in entries {
            let md5 = Self::local_md5(request, entry).await?;
            self.send_file(draft, request, entry, &md5, progress)
                .await?;
        }
        Ok(())
    }

    /// InvenioRDM's first step of an upload: name `entries` as files of the draft, to be
    /// sent and committed next. Nothing is asked for none.
    async fn init_files(&self, draft: &str, entries: &[&ManifestEntry]) -> Result<(), Failure> {
        if entries.is_empty() {
            return Ok(());
        }
        let keys: Vec<Value> = entries.iter().map(|e| json!({"key": e.path})).collect();
        let resp = self
            .send(
                Method::POST,
                self.url(&["api", "records", draft, "draft", "files"]),
                Some(Value::Array(keys).to_string().into()),
                true,
            )
            .await?;
        if !resp.status().is_success() {
            return Err(Self::failure_of(resp).await);
        }
        Ok(())
    }

    async fn send_file(
        &self,
        draft: &str,
        request: &DepositRequest<'_>,
        entry: &ManifestEntry,
        md5: &str,
        progress: &ProgressSink,
    ) -> Result<(), Failure> {
        let path = crate::content::on_disk(request.root, &entry.path);
        let slice = FileSlice {
            path: &path,
            offset: 0,
            len: entry.size,
            expect: Some(entry.sha256),
        };
        let (body, watch) = file_body(slice, progress.clone()).await?;
        let content_url = self.url(&[
            "api",
            "records",
            draft,
            "draft",
            "files",
            &entry.path,
            "content",
        ]);
        let sent =
            (self.send_watched(Method::PUT, content_url, Some(body), false, Some(&watch))).await;
        if let Some(changed) = refusal(&path, &watch) {
            return Err(changed);
        }
        let resp = sent?;
        if !resp.status().is_success() {
            return Err(Self::failure_of(resp).await.naming_file(&entry.path));
        }
        let commit_url = self.url(&[
            "api",
            "records",
            draft,
            "draft",
            "files",
            &entry.path,
            "commit",
        ]);
        let resp = self.send(Method::POST, commit_url, None, false).await?;
        if !resp.status().is_success() {
            return Err(Self::failure_of(resp).await);
        }
        let committed = Self::json_of(resp, "commit").await?;
        match committed["checksum"].as_str() {
            Some(c) if c == md5 => Ok(()),
            other => Err(Failure::Ambiguous {
                status: Some(200),
                message: format!(
                    "{}: the server's checksum {} differs from the local {md5}; sending again",
                    entry.path,
                    other.unwrap_or("(none)")
                ),
            }),
        }
    }

    /// Whether any file of the draft is not committed yet.
    async fn has_pending_file(&self, draft: &str) -> Result<bool, Failure> {
        match self.draft_files(draft).await {
            Ok(files) => Ok(files.iter().any(|f| f["status"] != "completed")),
            // The server would not list them: none pending that we know of.
            Err(f) if f.http_status().is_some_and(|s| s != 200) => Ok(false),
            Err(f) => Err(f),
        }
    }

    /// The validation errors InvenioRDM lists for `draft` (what publishing it would refuse)
    /// as a terminal refusal with their field messages, the draft discarded when this
    /// attempt made it; `Ok` when it has none.
    async fn refuse_invalid_draft(&self, draft: &str, made_here: bool) -> Result<(), Failure> {
        let resp = self
            .send(
                Method::GET,
                self.url(&["api", "records", draft, "draft"]),
                None,
                false,
            )
            .await?;
        if resp.status() != StatusCode::OK {
            return Err(Self::failure_of(resp).await);
        }
        let body = Self::json_of(resp, "draft").await?;
        let errors = body["errors"].as_array().cloned().unwrap_or_default();
        if errors.is_empty() {
            return Ok(());
        }
        if made_here {
            self.discard_draft(draft).await?;
        }
        // Said as publishing would say it.
        let refusal = json!({
            "status": 400,
            "message": "A validation error occurred.",
            "errors": errors,
        });
        Err(Failure::from_status(400, None, &refusal.to_string()))
    }

    /// A file the draft was sent refused for good (too large, say), or found changed since
    /// the scan (as it was sent, or before): the draft this attempt made is discarded, as
    /// one whose metadata is refused is, so that no stray upload stays in the account. One
    /// made before (it may be one a person has edited at the site), or that cannot be
    /// discarded, stays and is named.
    async fn discard_refused_draft(
        &self,
        draft: &str,
        made_here: bool,
        refused: Failure,
    ) -> Failure {
        if !made_here {
            let note = format!(
                "draft {draft} stays at {} with the files sent so far: discard it there if it \
                 is not to be kept",
                self.site_name()
            );
            return with_draft_note(refused, note);
        }
        match self.discard_draft(draft).await {
            Ok(()) => refused,
            Err(why) => with_draft_note(
                refused,
                format!("its draft {draft} could not be discarded ({why}): discard it on its page"),
            ),
        }
    }

    async fn discard_draft(&self, id: &str) -> Result<(), Failure> {
        let resp = self
            .send(
                Method::DELETE,
                self.url(&["api", "records", id, "draft"]),
                None,
                false,
            )
            .await?;
        match resp.status() {
            s if s.is_success() || s == StatusCode::NOT_FOUND => Ok(()),
            _ => Err(Self::failure_of(resp).await),
        }
    }

    /// Publish the draft of `request`'s key, or find its record published already: never
    /// blindly, what the server has is read first.
    async fn publish_draft(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        let hits = self.find(&request.key).await?;
        if let Some(published) = hits.iter().find(|h| h.published) {
            return Ok(Landed::Existing(Self::record_ref(published)));
        }
        let Some(draft) = hits.first() else {
            return Err(Failure::Ambiguous {
                status: None,
                message: "the draft for this key is not found yet; looking again".into(),
            });
        };
        if !self.publish {
            // Every file was sent and committed by the upload; one still pending is another
            // worker's, which finishes it.
            if self.has_pending_file(&draft.id).await? {
                return Err(Failure::NotSent {
                    message: format!(
                        "a file of draft {} is still being uploaded (another worker?); \
                         looking again later",
                        draft.id
                    ),
                });
            }
            return Ok(Landed::Created(Self::record_ref(draft)));
        }
        let resp = self
            .send(
                Method::POST,
                self.url(&["api", "records", &draft.id, "draft", "actions", "publish"]),
                None,
                false,
            )
            .await?;
        if resp.status() == StatusCode::ACCEPTED || resp.status() == StatusCode::OK {
            let published = Self::json_of(resp, "publish").await?;
            let record = RecordRef {
                identifier: published["id"].as_str().unwrap_or(&draft.id).to_string(),
                url: published["links"]["self_html"].as_str().map(str::to_string),
            };
            // A later version of a work, made from the newest earlier record still there
            // (not a record of its own, as when none was).
            let later_version = published["versions"]["index"]
                .as_i64()
                .is_some_and(|index| index > 1);
            let of = match later_version {
                true => self.newest_earlier_record(request).await,
                false => None,
            };
            return Ok(match of {
                Some(of) => Landed::NewVersion { record, of },
                None => Landed::Created(record),
            });
        }
        let failure = Self::failure_of(resp).await;
        // Another worker may have published this very draft a moment ago (its draft is then
        // gone), or be sending one of its files again: what the server holds now decides,
        // not the refusal.
        if let Some(published) = self.find(&request.key).await?.iter().find(|h| h.published) {
            return Ok(Landed::Existing(Self::record_ref(published)));
        }
        // A refusal about files only (not about metadata) comes from another worker still
        // sending one: publishing later will do. Metadata problems stay terminal.
        let only_files = matches!(&failure, Failure::Rejected { problems, .. }
            if !problems.is_empty() && problems.iter().all(|p| p.field.starts_with("files")));
        if only_files
            || (failure.class() == super::FailureClass::Terminal
                && self.has_pending_file(&draft.id).await?)
        {
            return Err(Failure::NotSent {
                message: format!(
                    "a file of draft {} is still being uploaded (another worker?); publishing later",
                    draft.id
                ),
            });
        }
        // The draft stays, with the files: it may be one a person has edited at the site
        // (a drafting target's), so it is not discarded here; the refusal names it.
        let note = format!(
            "draft {} stays at {} with the files: a deposit again with the metadata unchanged \
             takes it up; with the metadata changed it is another deposit, so discard {} there",
            draft.id,
            self.site_name(),
            draft.id
        );
        Err(with_draft_note(failure, note))
    }
}

/// `failure` with `note` on the draft it leaves added, when it is a refusal or a file changed
/// since the scan (what the person acts on); any other failure as it is.
fn with_draft_note(failure: Failure, note: String) -> Failure {
    match failure {
        Failure::Changed { path, message } => Failure::Changed {
            path,
            message: format!("{message}; {note}"),
        },
        Failure::Rejected {
            status,
            mut problems,
        } => {
            problems.push(FieldProblem {
                field: "draft".into(),
                message: note,
            });
            Failure::Rejected { status, problems }
        }
        other => other,
    }
}

#[async_trait]
impl Target for InvenioTarget {
    fn scope_id(&self) -> &str {
        &self.scope_id
    }

    fn label(&self) -> String {
        // Told apart from the same site's publishing target wherever both are named.
        let drafts = if self.publish { "" } else { ", drafts" };
        // The port too, where one is given: two sites on one host are told apart.
        let port = self
            .base
            .port()
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        format!(
            "{} at {}{port}{drafts}",
            self.site_name(),
            self.base.host_str().unwrap_or("?")
        )
    }

    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        if let Some(refused) = self.refusal_before_sending(request) {
            return Err(refused);
        }
        let hits = self.find(&request.key).await?;
        if hits.iter().any(|h| h.published) {
            return Ok(());
        }
        let (draft, made_here) = match hits.first() {
            Some(oldest) => (oldest.id.clone(), false),
            None => {
                let mine = self.create_draft(request).await?;
                // Another machine may have made a draft for the same key meanwhile: the
                // oldest wins everywhere, so exactly one is ever published.
                let hits = self.find(&request.key).await?;
                match hits.iter().find(|h| !h.published) {
                    Some(oldest) if oldest.id != mine => {
                        self.discard_draft(&mine).await?;
                        (oldest.id.clone(), false)
                    }
                    _ => (mine, true),
                }
            }
        };
        if !self.publish {
            // Nothing publishes it here to be refused: what publishing would refuse is said
            // now, before its files are sent.
            self.refuse_invalid_draft(&draft, made_here).await?;
        }
        match self.send_files(&draft, request, &progress).await {
            Err(failure) if failure.http_status() == Some(404) => {
                // The draft went away under us: another worker published it (then the
                // record stands) or discarded it (then try again).
                if self.find(&request.key).await?.iter().any(|h| h.published) {
                    Ok(())
                } else {
                    Err(Failure::NotSent {
                        message: format!("draft {draft} disappeared while sending; trying again"),
                    })
                }
            }
            // A file refused for good, or found changed since the scan (its next deposit,
            // after a rescan, is another key's and would never take this draft up).
            Err(stopped @ (Failure::Rejected { .. } | Failure::Changed { .. })) => {
                Err(self.discard_refused_draft(&draft, made_here, stopped).await)
            }
            other => other,
        }
    }

    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        let landed = self.publish_draft(request).await?;
        let communities = &request.document.metadata.communities;
        if self.publish && !communities.is_empty() {
            self.request_inclusion(&landed.record().identifier, communities)
                .await?;
        }
        Ok(landed)
    }

    async fn lookup(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        let hits = self.find(key).await?;
        Ok(hits.iter().find(|h| h.published).map(Self::record_ref))
    }

    fn can_lookup(&self) -> bool {
        true
    }

    /// The published record of `key`, its community requests made (as after publishing).
    async fn reconcile(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
    ) -> Result<Option<RecordRef>, Failure> {
        let found = self.lookup(key).await?;
        let communities = &document.metadata.communities;
        if let Some(record) = &found
            && self.publish
            && !communities.is_empty()
        {
            self.request_inclusion(&record.identifier, communities)
                .await?;
        }
        Ok(found)
    }

    /// A draft is published when the site has it as a record (`/api/records/{id}`; a draft
    /// never published is only at `/api/records/{id}/draft`).
    async fn draft_published(
        &self,
        _key: &ContentKey,
        record: &str,
    ) -> Result<Option<bool>, Failure> {
        if self.publish {
            return Ok(None);
        }
        let resp = (self.send(
            Method::GET,
            self.url(&["api", "records", record]),
            None,
            false,
        ))
        .await?;
        match resp.status() {
            StatusCode::OK => Ok(Some(true)),
            StatusCode::NOT_FOUND | StatusCode::GONE => Ok(Some(false)),
            _ => Err(Self::failure_of(resp).await),
        }
    }

    async fn holdings(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Holdings, Failure> {
        let hits = self.find(key).await?;
        // A target that leaves drafts checks its draft until someone publishes it.
        let found = match hits.iter().find(|h| h.published) {
            Some(published) => Some(published),
            None if !self.publish => hits.first(),
            None => None,
        };
        let Some(hit) = found else {
            return Ok(Holdings {
                record: None,
                files: Vec::new(),
            });
        };
        let record = Self::record_ref(hit);
        let files = self
            .record_files(&record.identifier, !hit.published, document, read, progress)
            .await?;
        Ok(Holdings {
            record: Some(record),
            files,
        })
    }

    fn links_versions(&self) -> bool {
        true
    }

    /// Zenodo takes at most [`ZENODO_MAX_FILES`] files in a record: a dataset with more is
    /// refused before a draft is made, rather than left as a draft half filled. (Its 50 GB
    /// per record is not checked: Zenodo raises it for a record on request, and says so
    /// itself when it is exceeded.) Other InvenioRDM sites set their own limits.
    ///
    /// An award named by only its title, or by only its number with no funder id to find it
    /// by in the site's list of awards, is refused here too: InvenioRDM takes an award it
    /// does not list with both or not at all, and would refuse the draft.
    fn refusal_before_sending(&self, request: &DepositRequest<'_>) -> Option<Failure> {
        let mut problems = Vec::new();
        let files = request.document.manifest.len();
        if self.kind == "zenodo" && files > ZENODO_MAX_FILES {
            problems.push(FieldProblem {
                field: "files".into(),
                message: format!(
                    "Zenodo takes at most {ZENODO_MAX_FILES} files in a record and this \
                     dataset has {files}: put them in a few archives (a .zip of each folder, \
                     say), add the folder again, and deposit it"
                ),
            });
        }
        // The site refuses it at publish, once the draft holds the files: said before
        // anything is made. (`lodge add` warned of it already.)
        if let Some(until) = request.document.metadata.access.embargo_until()
            && crate::content::is_calendar_date(until)
            && until <= crate::content::today().as_str()
        {
            problems.push(FieldProblem {
                field: "access.embargo.until".into(),
                message: format!(
                    "the embargo ends on {until}, which has come: {} refuses an embargo that \
                     is not in the future (the files would be open at once); give a later day \
                     (lodge add {} --embargo-until YYYY-MM-DD, or the details' File access \
                     field), or make the files open",
                    self.site_name(),
                    shlex::try_quote(&request.root.to_string_lossy()).unwrap_or_default()
                ),
            });
        }
        for (i, f) in request.document.metadata.funding.iter().enumerate() {
            // An award number with the funder's id may be in the site's list of awards,
            // which only the site can say (`linked_funding`, before the draft is made).
            let findable = f.award_number.is_some() && f.funder_id.is_some();
            if f.award_is_partial() && !findable {
                let why = vocabularies::Unfound::NoFunderId;
                problems.push(self.partial_award_problem(i, f, why));
            }
        }
        (!problems.is_empty()).then_some(Failure::Rejected {
            status: 0,
            problems,
        })
    }

    fn duplicate_guard(&self) -> &'static str {
        "the content key is kept as the subject lodge:KEY, and your records and drafts are \
         searched for it before anything is created"
    }

    fn enforces_file_access(&self) -> bool {
        true
    }

    fn makes_drafts(&self) -> bool {
        !self.publish
    }

    fn plan_beside(&self, _key: &ContentKey, elsewhere: &[(String, String)]) -> Option<String> {
        let drafts = format!("{}?state=draft", self.scope_id);
        let (_, draft) = elsewhere
            .iter()
            .find(|(target, _)| self.publish && *target == drafts)?;
        Some(format!(
            "publishing draft {draft}, which the deposit to {drafts} left (if it is still a \
             draft)"
        ))
    }

    /// A draft left for review takes its lost files back; a published record's files
    /// cannot change.
    fn files_can_be_put_back(&self) -> Result<(), &'static str> {
        match self.publish {
            true => Err(
                "InvenioRDM and Zenodo do not let a published record's files change: ask the \
                 repository's support to restore the file from their copy",
            ),
            false => Ok(()),
        }
    }

    async fn put_back(
        &self,
        request: &DepositRequest<'_>,
        record: &str,
        lost: &[String],
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        match self.publish {
            true => Err(Failure::Conflict {
                message: "a published record's files cannot change".into(),
            }),
            false => {
                self.put_back_into_draft(record, request, lost, &progress)
                    .await
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A person with one name alone ("Zhang,") is sent with a family name and no given
    /// name, not an empty one; an organisation whose name has a comma is sent whole.
    #[test]
    fn one_name_alone_has_no_given_name_and_a_marked_organisation_is_sent_whole() {
        assert_eq!(
            creator(&Creator::named("Zhang,"))["person_or_org"],
            json!({"type": "personal", "family_name": "Zhang"})
        );
        let berkeley = Creator {
            organisation: true,
            ..Creator::named("University of California, Berkeley")
        };
        assert_eq!(
            creator(&berkeley)["person_or_org"],
            json!({"type": "organizational", "name": "University of California, Berkeley"})
        );
    }
}
