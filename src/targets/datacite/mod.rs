//! The DataCite target: DOIs minted with `POST /dois` naming a DOI derived from the content
//! key, so that the DOI registry itself arbitrates (invariant 3).
//!
//! URL: `datacite+https://api.test.datacite.org?prefix=10.1234&repository=ORG.REPO`, with
//! optional `state=draft|register|publish` (draft by default) and a landing page, required to
//! publish: `url=` (a template; `{key}` and `{doi}` are filled in) or `landing_from=TARGET_URL`
//! ("mint a DOI for what I deposited to that target": each dataset's landing page is the
//! record URL its deposit to that target recorded; see [`DataCiteTarget::with_landing_pages`]
//! and [`DataCiteTarget::with_landing_lookup`]).
//! The password is the target's token (`--token` / `LODGE_TOKEN`, or stored with a named
//! target). A `422 ... already been taken` is read back with `GET /dois/{doi}`: the same
//! content key there means the DOI exists already (success), another key is a conflict for a
//! person. The upserting `PUT /dois/{doi}` is used only on a DOI read back as the key's own,
//! to raise a draft (minted by a target in `state=draft`) to the state a target that
//! registers or publishes asks for; such a target is a scope of its own, so publishing a
//! key's draft is a deposit, not a replay of the draft's.

pub mod doi;
pub mod mapping;

use async_trait::async_trait;
use reqwest::{StatusCode, Url, header};
use serde_json::Value;

use super::probe::ProbeReport;
use super::{DepositRequest, Failure, Holdings, Landed, ProgressSink, ReadBack, RecordRef, Target};
use crate::content::{ContentDocument, ContentKey};
use mapping::DoiState;

const JSON_API: &str = "application/vnd.api+json";

/// The landing page of a content key, from the record its deposit to the `landing_from`
/// target recorded (`None`: not deposited there yet; an error: the record could not be
/// read, which says nothing of whether there is one).
pub type LandingLookup =
    std::sync::Arc<dyn Fn(&ContentKey) -> Result<Option<Landing>, String> + Send + Sync>;

/// The record a dataset's deposit to the `landing_from=` target got, as its DOI's landing
/// page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landing {
    /// A record anyone can see, at this address (a draft published since: its public page).
    Public(String),
    /// A draft a drafting target made (`record`, its page at `url`), not published as far
    /// as Lodge knows: only its owner sees it.
    Draft { record: String, url: String },
}

/// How a refusal for want of a landing page begins: the dataset has no record yet on the
/// target `landing_from=` names.
const NO_LANDING_PAGE: &str = "no landing page: this dataset has no record on ";

/// How a refusal for want of a public landing page begins: the dataset's record on the
/// target `landing_from=` names is a draft, and a registered or findable DOI cannot be
/// taken back once it resolves to that draft's page.
const DRAFT_LANDING_PAGE: &str = "no public landing page: this dataset's record on ";

/// Whether a refusal's `cause` is for want of a (public) landing page: not the metadata's
/// fault, the same deposit goes through once the dataset is deposited to the
/// `landing_from=` target, or its draft there published.
pub fn waits_for_landing(cause: &str) -> bool {
    cause.contains(NO_LANDING_PAGE) || cause.contains(DRAFT_LANDING_PAGE)
}

/// Whether a refusal's `cause` is DataCite saying the target's prefix is not one of its
/// repository's: the target's URL is to fix (`prefix=`, `repository=`), not the metadata.
pub fn prefix_not_the_repositorys(cause: &str) -> bool {
    let cause = cause.to_ascii_lowercase();
    cause.contains("prefix") && cause.contains("not assigned")
}

/// Client of one DataCite repository (a prefix on a DataCite API endpoint).
pub struct DataCiteTarget {
    /// `datacite+` and the URL it was opened from (no password: that comes apart).
    url: String,
    api: Url,
    scope_id: String,
    prefix: String,
    repository: String,
    password: Option<String>,
    state: DoiState,
    landing: Option<String>,
    /// The target whose record URLs are the landing pages, when `landing_from` is given.
    landing_from: Option<String>,
    /// Landing pages by content key (hex), filled in from the store by the caller.
    landing_pages: std::collections::HashMap<String, Landing>,
    /// Or where to look each one up as its deposit starts (a window, whose engine outlives
    /// any list of keys).
    landing_lookup: Option<LandingLookup>,
    http: reqwest::Client,
}

/// `url` with any `user:password@` taken out, so that what is kept of it holds no secret.
fn without_userinfo(url: &Url) -> Url {
    let mut url = url.clone();
    // Only URLs that cannot have a user (`data:`, say) refuse these, and this is http(s).
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url
}

fn query(url: &Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

impl DataCiteTarget {
    /// `rest` is the part after `datacite+`.
    pub fn new(rest: &str, password: Option<String>) -> Result<Self, String> {
        let url = Url::parse(rest).map_err(|e| format!("{rest}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "the scheme must be https (or http on loopback), not '{}'",
                url.scheme()
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| "it names no host".to_string())?
            .to_ascii_lowercase();
        super::http::check_transport(&url, false)?;
        let port = url
            .port_or_known_default()
            .ok_or_else(|| "it names no port".to_string())?;
        super::http::check_url_options(
            url.query(),
            &["prefix", "repository", "state", "url", "landing_from"],
        )?;
        let prefix = query(&url, "prefix")
            .ok_or("it needs the DOI prefix: add ?prefix=10.xxxx (your repository's prefix)")?;
        if let Some(problem) = prefix_problem(&prefix) {
            return Err(problem);
        }
        let repository = query(&url, "repository")
            .ok_or("it needs the repository id: add &repository=ORG.REPO")?;
        let state = match query(&url, "state") {
            None => DoiState::Draft,
            Some(s) => DoiState::parse(&s)
                .ok_or_else(|| format!("state '{s}' is not one of draft, register, publish"))?,
        };
        let landing = query(&url, "url");
        if let Some(template) = &landing {
            check_landing_template(template)?;
        }
        // A target URL's "+" arrives as a space after query decoding; target URLs hold no
        // spaces, so put it back rather than make people write %2B.
        let landing_from = query(&url, "landing_from").map(|u| u.replace(' ', "+"));
        if state == DoiState::Publish && landing.is_none() && landing_from.is_none() {
            return Err(
                "publishing a DOI needs a landing page: add &url=https://... \
                        ({key} and {doi} are filled in) or &landing_from=TARGET_URL"
                    .into(),
            );
        }
        let mut api = url.clone();
        api.set_query(None);
        let path = api.path().trim_end_matches('/').to_string();
        api.set_path(&format!("{path}/"));
        let http = super::http::client()?;
        // One DOI per key and prefix, but a target that registers or publishes brings about
        // more than one that mints drafts: publishing a key's draft DOI is a deposit of its
        // own, not a replay of the draft's. Drafts keep the identity they always had.
        let state_part = match state {
            DoiState::Draft => String::new(),
            raised => format!("?state={}", raised.event().unwrap_or_default()),
        };
        Ok(DataCiteTarget {
            url: format!("datacite+{}", without_userinfo(&url)),
            scope_id: format!(
                "datacite+{}://{host}:{port}{path}/{prefix}{state_part}",
                url.scheme()
            ),
            api,
            prefix,
            repository,
            password,
            state,
            landing,
            landing_from,
            landing_pages: Default::default(),
            landing_lookup: None,
            http,
        })
    }

    /// The landing page of `key`'s DOI, if the target gives one; refused (before anything is
    /// sent) when it comes from `landing_from=` and that target has no record of `key`, or
    /// only a draft while this target's DOIs resolve ([`Self::landing_page_of`]).
    fn landing_page(&self, key: &ContentKey, doi: &str) -> Result<Option<String>, Failure> {
        match (&self.landing, &self.landing_from) {
            (Some(template), _) => Ok(Some(
                template
                    .replace("{key}", &key.to_hex())
                    .replace("{doi}", doi),
            )),
            (None, Some(from)) => {
                let found = match self.landing_pages.get(&key.to_hex()).cloned() {
                    Some(landing) => Some(landing),
                    None => self.looked_up_landing(key, from)?,
                };
                self.landing_page_of(found, from).map(Some)
            }
            (None, None) => Ok(None),
        }
    }

    /// The landing page of `key` from [`Self::with_landing_lookup`]. A lookup that fails is
    /// no refusal: nothing was sent, and the deposit is tried again.
    fn looked_up_landing(&self, key: &ContentKey, from: &str) -> Result<Option<Landing>, Failure> {
        match &self.landing_lookup {
            Some(lookup) => lookup(key).map_err(|e| Failure::NotSent {
                message: format!(
                    "cannot read from Lodge's store the record on {from} that gives the DOI \
                     its landing page: {e}"
                ),
            }),
            None => Ok(None),
        }
    }

    /// The address a DOI of this target may resolve to, of the record `found` on `from`:
    /// refused when there is none, and when it is a draft while this target registers or
    /// publishes. Such a DOI resolves through doi.org for anyone, at once, and DataCite
    /// never deletes it: it would lead to a page only the draft's owner sees (the draft's
    /// edit page), or to nothing once the draft is discarded. A draft DOI resolves nowhere
    /// and can be deleted, so it may point at a draft; the deposit that registers or
    /// publishes it later looks its landing page up again.
    fn landing_page_of(&self, found: Option<Landing>, from: &str) -> Result<String, Failure> {
        let refused = |message: String| Failure::Rejected {
            status: 0,
            problems: vec![crate::content::FieldProblem {
                field: "url".into(),
                message,
            }],
        };
        match found {
            Some(Landing::Public(url)) => Ok(url),
            Some(Landing::Draft { url, .. }) if self.state == DoiState::Draft => Ok(url),
            Some(Landing::Draft { record, url }) => Err(refused(format!(
                "{DRAFT_LANDING_PAGE}{from} is draft {record} ({url}), which only its owner \
                 sees, and a {} DOI resolves for anyone and cannot be withdrawn: publish \
                 {record} at the repository and run `lodge verify` on this dataset so Lodge \
                 knows (or deposit it to the repository's publishing target), or mint a \
                 draft DOI for now (state=draft)",
                self.state.reported()
            ))),
            None => Err(refused(format!(
                "{NO_LANDING_PAGE}{from} yet; deposit it there first"
            ))),
        }
    }

    /// The target named by `landing_from=`, whose record URLs become landing pages.
    pub fn landing_from(&self) -> Option<&str> {
        self.landing_from.as_deref()
    }

    /// Landing pages by content key (hex), for `landing_from`.
    pub fn with_landing_pages(mut self, pages: std::collections::HashMap<String, Landing>) -> Self {
        self.landing_pages = pages;
        self
    }

    /// Where to look up the landing page of each key as its deposit starts, for
    /// `landing_from` (the call is quick: one read of the caller's store).
    pub fn with_landing_lookup(mut self, lookup: LandingLookup) -> Self {
        self.landing_lookup = Some(lookup);
        self
    }

    fn doi(&self, key: &ContentKey) -> String {
        doi::doi_for(&self.prefix, key)
    }

    fn endpoint(&self, path: &str) -> Url {
        self.api.join(path).expect("relative URL")
    }

    fn authed(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.basic_auth(&self.repository, self.password.as_deref())
            .header(header::ACCEPT, JSON_API)
    }

    /// Where a person can see the DOI ([`doi_page`]).
    fn record_url(&self, doi: &str, state: DoiState) -> String {
        doi_page(&self.api, doi, state)
    }

    /// The prefixes DataCite lists for the target's repository (`GET /repositories/{id}`,
    /// a public page), or `None` when it knows no such repository.
    async fn repository_prefixes(&self) -> Result<Option<Vec<String>>, Failure> {
        let mut url = self.endpoint("repositories/");
        url.path_segments_mut()
            .expect("an http(s) URL has a path")
            .pop_if_empty()
            .push(&self.repository);
        let resp = self
            .http
            .get(url)
            .header(header::ACCEPT, JSON_API)
            .send()
            .await
            .map_err(|e| Failure::from_reqwest(&e))?;
        match resp.status() {
            StatusCode::OK => {
                let unreadable = |why: String| Failure::Ambiguous {
                    status: Some(200),
                    message: format!("unreadable repository {}: {why}", self.repository),
                };
                let body: Value = resp.json().await.map_err(|e| unreadable(e.to_string()))?;
                let listed = body["data"]["relationships"]["prefixes"]["data"]
                    .as_array()
                    .ok_or_else(|| unreadable("it lists no prefixes".into()))?;
                Ok(Some(
                    listed
                        .iter()
                        .filter_map(|p| p["id"].as_str().map(str::to_string))
                        .collect(),
                ))
            }
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(super::http::failure_of(resp).await),
        }
    }

    /// `target test`'s last check: whether the target's prefix is one its repository has.
    /// DataCite refuses every DOI under another prefix, but only says so when one is sent.
    async fn check_prefix(&self, report: &mut ProbeReport) {
        let (prefix, repository) = (&self.prefix, &self.repository);
        match self.repository_prefixes().await {
            Ok(Some(prefixes)) if prefixes.iter().any(|p| p == prefix) => {
                report.pass(
                    "prefix",
                    format!("{prefix} is one of {repository}'s prefixes"),
                );
            }
            Ok(Some(prefixes)) if prefixes.is_empty() => report.fail(
                "prefix",
                format!(
                    "DataCite lists no prefix for repository {repository}, so it would refuse \
                     every DOI: ask your DataCite member to assign one, then give it as \
                     prefix= in the target's URL"
                ),
            ),
            Ok(Some(prefixes)) => report.fail(
                "prefix",
                format!(
                    "{prefix} is not one of repository {repository}'s prefixes ({}), so \
                     DataCite would refuse every DOI under it: give one of them as prefix= in \
                     the target's URL (`lodge target add NAME \
                     'datacite+{}://…?prefix={}&repository={repository}'`)",
                    prefixes.join(", "),
                    self.api.scheme(),
                    prefixes[0]
                ),
            ),
            Ok(None) => report.fail(
                "prefix",
                format!(
                    "DataCite knows no repository {repository} here: give the repository ID \
                     you sign in to Fabrica with as repository= in the target's URL"
                ),
            ),
            Err(failure) => report.fail("prefix", failure.to_string()),
        }
    }

    /// The attributes of `doi`, or `None` when DataCite has no such DOI.
    async fn read_doi(&self, doi: &str) -> Result<Option<Value>, Failure> {
        let resp = self
            .authed(self.http.get(self.endpoint(&format!("dois/{doi}"))))
            .send()
            .await
            .map_err(|e| Failure::from_reqwest(&e))?;
        match resp.status() {
            StatusCode::OK => {
                let body: Value = resp.json().await.map_err(|e| Failure::Ambiguous {
                    status: Some(200),
                    message: format!("unreadable DOI record: {e}"),
                })?;
                Ok(Some(body["data"]["attributes"].clone()))
            }
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(super::http::failure_of(resp).await),
        }
    }

    /// `Some(record)` if `doi` exists and carries `key`, with the state DataCite reports
    /// for it; a conflict if it carries another key.
    async fn ours(
        &self,
        doi: &str,
        key: &ContentKey,
    ) -> Result<Option<(RecordRef, DoiState)>, Failure> {
        let Some(attributes) = self.read_doi(doi).await? else {
            return Ok(None);
        };
        match mapping::key_of(&attributes) {
            Some(k) if k == key.to_hex() => {
                let state = state_of(&attributes);
                let record = RecordRef {
                    identifier: doi.to_string(),
                    url: Some(self.record_url(doi, state)),
                };
                Ok(Some((record, state)))
            }
            other => Err(Failure::Conflict {
                message: format!(
                    "DOI {doi} already exists for other content ({}); Lodge derives DOIs from \
                     content keys and will not reuse it: choose another prefix or mint this \
                     DOI by hand",
                    other
                        .map(|k| format!("content key {}", &k[..12.min(k.len())]))
                        .unwrap_or_else(|| "not minted by Lodge".into())
                ),
            }),
        }
    }

    /// Bring `doi`, which carries the deposit's key and is in state `was`, to this target's
    /// state with DataCite's event (`PUT /dois/{doi}`). Only a DOI read back as this key's
    /// is changed this way, so the upsert cannot make a second DOI.
    async fn raise(
        &self,
        doi: &str,
        was: DoiState,
        landing: Option<&str>,
    ) -> Result<Landed, Failure> {
        let mut attributes = serde_json::json!({ "event": self.state.event() });
        if let Some(url) = landing {
            attributes["url"] = serde_json::json!(url);
        }
        let body = serde_json::json!({ "data": { "type": "dois", "attributes": attributes } });
        let resp = self
            .authed(self.http.put(self.endpoint(&format!("dois/{doi}"))))
            .header(header::CONTENT_TYPE, JSON_API)
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| Failure::from_reqwest(&e))?;
        match resp.status() {
            StatusCode::OK => Ok(Landed::Updated {
                record: RecordRef {
                    identifier: doi.to_string(),
                    url: Some(self.record_url(doi, self.state)),
                },
                change: format!(
                    "it was {} DOI and is {} now",
                    match was {
                        DoiState::Draft => "a draft",
                        _ => "a registered",
                    },
                    self.state.reported()
                ),
            }),
            StatusCode::UNPROCESSABLE_ENTITY => {
                let text = resp.text().await.unwrap_or_default();
                Err(Failure::from_status(422, None, &text))
            }
            _ => Err(super::http::failure_of(resp).await),
        }
    }
}

/// Where a person can see `doi`, in `state`, of the DataCite API at `api` (its path ending
/// in '/'). A registered or findable DOI resolves through doi.org (the test system's through
/// its own handle server). A draft resolves nowhere (doi.org answers "DOI not found"): its
/// owner sees it in DataCite Fabrica, once logged in.
fn doi_page(api: &Url, doi: &str, state: DoiState) -> String {
    let fabrica = |host: &str| format!("https://{host}/dois/{}", doi.replace('/', "%2F"));
    match (api.host_str(), state == DoiState::Draft) {
        (Some("api.datacite.org"), false) => format!("https://doi.org/{doi}"),
        (Some("api.datacite.org"), true) => fabrica("doi.datacite.org"),
        (Some("api.test.datacite.org"), false) => {
            format!("https://handle.test.datacite.org/{doi}")
        }
        (Some("api.test.datacite.org"), true) => fabrica("doi.test.datacite.org"),
        _ => api
            .join(&format!("dois/{doi}"))
            .map(String::from)
            .unwrap_or_else(|_| doi.to_string()),
    }
}

/// Where a person can see `doi` once it is registered or findable, for the DataCite target
/// with identity `scope_id` (`datacite+SCHEME://HOST:PORT/PATH/PREFIX`, and its options):
/// what a draft DOI registered or published since (in Fabrica, say) is cited and linked
/// by, rather than its Fabrica page. `None` for another kind of identity.
pub fn resolvable_page(scope_id: &str, doi: &str) -> Option<String> {
    let site = scope_id.strip_prefix("datacite+")?;
    let site = site.split('?').next().unwrap_or(site);
    let (prefix, _) = doi.split_once('/')?;
    let api = site.strip_suffix(&format!("/{prefix}"))?;
    let api = Url::parse(&format!("{api}/")).ok()?;
    Some(doi_page(&api, doi, DoiState::Register))
}

/// The state DataCite reports for a DOI (`draft`, `registered`, `findable`); one it does not
/// name is taken as resolvable.
fn state_of(attributes: &Value) -> DoiState {
    attributes["state"]
        .as_str()
        .and_then(DoiState::parse)
        .unwrap_or(DoiState::Register)
}

fn taken(body: &str) -> bool {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("errors").and_then(Value::as_array).cloned())
        .is_some_and(|errors| {
            errors.iter().any(|e| {
                e.get("title")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.to_ascii_lowercase().contains("already been taken"))
            })
        })
}

#[async_trait]
impl Target for DataCiteTarget {
    fn scope_id(&self) -> &str {
        &self.scope_id
    }

    fn target_url(&self) -> String {
        self.url.clone()
    }

    fn label(&self) -> String {
        // A drafting target and a publishing one of the same prefix are two targets: told
        // apart wherever they are named together.
        let drafts = match self.state {
            DoiState::Draft => ", drafts",
            _ => "",
        };
        format!(
            "DataCite {} ({} on {}{drafts})",
            self.prefix,
            self.repository,
            self.api.host_str().unwrap_or("?")
        )
    }

    /// DataCite holds metadata only; the data lives at the landing page.
    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        progress(request.document.total_size());
        Ok(())
    }

    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure> {
        let doi = self.doi(&request.key);
        let landing = self.landing_page(&request.key, &doi)?;
        let body = serde_json::json!({
            "data": {
                "type": "dois",
                "attributes": mapping::attributes(
                    &doi,
                    &request.key,
                    request.document,
                    self.state,
                    landing.as_deref(),
                    request.earlier_record(),
                ),
            }
        });
        let resp = self
            .authed(self.http.post(self.endpoint("dois")))
            .header(header::CONTENT_TYPE, JSON_API)
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| Failure::from_reqwest(&e))?;
        let status = resp.status();
        if status == StatusCode::CREATED {
            let record = RecordRef {
                url: Some(self.record_url(&doi, self.state)),
                identifier: doi,
            };
            return Ok(match request.earlier_record() {
                Some(of) => Landed::NewVersion {
                    record,
                    of: of.to_string(),
                },
                None => Landed::Created(record),
            });
        }
        if status == StatusCode::UNPROCESSABLE_ENTITY {
            let text = resp.text().await.unwrap_or_default();
            if taken(&text) {
                return match self.ours(&doi, &request.key).await? {
                    Some((record, state)) if state >= self.state => Ok(Landed::Existing(record)),
                    // Minted before by a target that made it a draft (or only registered
                    // it): this target's state is what this deposit is for.
                    Some((_, state)) => self.raise(&doi, state, landing.as_deref()).await,
                    // Taken, yet not readable: the registry is mid-change; ask again later.
                    None => Err(Failure::Ambiguous {
                        status: Some(422),
                        message: format!("DOI {doi} is reported taken but cannot be read yet"),
                    }),
                };
            }
            return Err(Failure::from_status(422, None, &text));
        }
        Err(super::http::failure_of(resp).await)
    }

    /// The key's DOI, once it is in the state this target brings DOIs to: a draft looked
    /// up by a target that publishes is not its deposit yet (the attempt raises it).
    async fn lookup(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure> {
        Ok(self
            .ours(&self.doi(key), key)
            .await?
            .filter(|(_, state)| *state >= self.state)
            .map(|(record, _)| record))
    }

    /// A new key's DOI is related to the earlier version's as `IsNewVersionOf`.
    fn links_versions(&self) -> bool {
        true
    }

    fn can_lookup(&self) -> bool {
        true
    }

    /// A draft DOI registered or made findable since (in Fabrica, say) is a draft no more.
    async fn draft_published(
        &self,
        key: &ContentKey,
        record: &str,
    ) -> Result<Option<bool>, Failure> {
        if self.state != DoiState::Draft {
            return Ok(None);
        }
        Ok(self
            .ours(record, key)
            .await?
            .map(|(_, state)| state > DoiState::Draft))
    }

    /// DataCite holds metadata only: the DOI, carrying the key, is all there is to find.
    async fn holdings(
        &self,
        key: &ContentKey,
        _document: &ContentDocument,
        _read: ReadBack,
        _progress: &ProgressSink,
    ) -> Result<Holdings, Failure> {
        // Whatever its state: verifying asks whether the DOI is still there.
        Ok(Holdings {
            record: self.ours(&self.doi(key), key).await?.map(|(r, _)| r),
            files: Vec::new(),
        })
    }

    fn refusal_before_sending(&self, request: &DepositRequest<'_>) -> Option<Failure> {
        self.landing_page(&request.key, &self.doi(&request.key))
            .err()
    }

    fn plan_beside(&self, key: &ContentKey, elsewhere: &[(String, String)]) -> Option<String> {
        let doi = self.doi(key);
        let (target, _) = elsewhere.iter().find(|(_, id)| *id == doi)?;
        Some(match self.state {
            DoiState::Draft => format!("DOI {doi}, made already by the deposit to {target}"),
            raised => format!(
                "DOI {doi}, made already by the deposit to {target}: made {} if it is not, \
                 not minted again",
                raised.reported()
            ),
        })
    }

    /// The default checks, then whether the repository has the target's prefix.
    async fn probe(&self) -> ProbeReport {
        let mut report = super::probe_by_lookup(self).await;
        if report.ok() {
            self.check_prefix(&mut report).await;
        }
        // DataCite refuses a repository id it does not know as it refuses a wrong password.
        report.amend_failure(
            "credentials",
            &format!(
                " (DataCite's 401 is for the repository id or its password: check \
                 repository={} in the target's URL, the id you sign in to Fabrica with, as \
                 well as the password)",
                self.repository
            ),
        );
        report
    }

    fn duplicate_guard(&self) -> &'static str {
        "the DOI is derived from the content key, so DataCite refuses a second one as \
         'already taken', and Lodge reads it back"
    }

    fn keeps_files(&self) -> bool {
        false
    }

    fn makes_drafts(&self) -> bool {
        self.state == DoiState::Draft
    }

    fn files_can_be_put_back(&self) -> Result<(), &'static str> {
        Err(
            "DataCite keeps a DOI's metadata, not its files: put the files back where the \
             DOI's landing page serves them",
        )
    }
}

/// What is wrong with `prefix` as a DataCite target's `prefix=` (the sandbox's
/// `--datacite-prefix` too, which prints a target URL with it), if anything. A space (`%20`,
/// a "+" pasted with it) would make another target, one DataCite refuses, that reads the
/// same in every listing; `&` or `#` would end the URL's option.
pub fn prefix_problem(prefix: &str) -> Option<String> {
    let fits = prefix.starts_with("10.")
        && prefix.len() > 3
        && !prefix.contains(|c: char| c == '/' || c == '&' || c == '#' || c.is_whitespace());
    (!fits).then(|| format!("'{prefix}' is not a DOI prefix (expected 10.xxxx, e.g. 10.80000)"))
}

/// A DataCite target's `url=`, the landing page each DOI resolves to, checked before any DOI
/// is minted with it (a findable DOI cannot be withdrawn): an http(s) address, with `{doi}`
/// or `{key}` in it (else every DOI resolves to one page), and no other placeholder (a
/// mistyped `{dio}` would be sent as written).
fn check_landing_template(template: &str) -> Result<(), String> {
    let filled = template.replace("{doi}", "10.1/x").replace("{key}", "k");
    if let Some(at) = filled.find('{') {
        let placeholder: String = filled[at..].chars().take_while(|c| *c != '}').collect();
        return Err(format!(
            "the landing page url={template} holds {placeholder}}}: only {{doi}} and {{key}} \
             are filled in"
        ));
    }
    if filled == template {
        return Err(format!(
            "the landing page url={template} is the same for every DOI: put {{doi}} (or \
             {{key}}) in it, e.g. url=https://data.example.org/{{doi}}"
        ));
    }
    match url::Url::parse(&filled) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err(format!(
            "the landing page url={template} is no http(s) address: give one like \
             url=https://data.example.org/{{doi}}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_landing_page_looked_up_is_used_missing_is_refused_and_unreadable_is_tried_again() {
        let key: ContentKey = "a".repeat(64).parse().unwrap();
        let with = |found: Result<Option<Landing>, String>| {
            DataCiteTarget::new(
                "http://127.0.0.1:1/?prefix=10.1234&repository=ORG.REPO&state=publish\
                 &landing_from=zen",
                None,
            )
            .unwrap()
            .with_landing_lookup(std::sync::Arc::new(move |_| found.clone()))
            .landing_page(&key, "10.1234/x")
        };
        assert_eq!(
            with(Ok(Some(Landing::Public("http://lab/records/1".into())))).unwrap(),
            Some("http://lab/records/1".into())
        );
        assert!(matches!(
            with(Ok(None)),
            Err(Failure::Rejected { status: 0, .. })
        ));
        // The store could not say: nothing is sent, and the engine tries again.
        let unreadable = with(Err("disk I/O error".into())).unwrap_err();
        assert!(
            matches!(&unreadable, Failure::NotSent { message } if message.contains("disk I/O error")),
            "{unreadable:?}"
        );
    }

    /// A registered or findable DOI resolves for anyone and is never deleted: it may not
    /// lead to a draft only its owner sees. A draft DOI resolves nowhere, so it may.
    #[test]
    fn a_draft_is_the_landing_page_of_a_draft_doi_only() {
        let key: ContentKey = "a".repeat(64).parse().unwrap();
        let from = "invenio+http://127.0.0.1:1?state=draft";
        let draft = Landing::Draft {
            record: "00000-00003".into(),
            url: "http://127.0.0.1:1/uploads/00000-00003".into(),
        };
        let landing_page = |state: &str| {
            let url = format!(
                "http://127.0.0.1:1/?prefix=10.1234&repository=ORG.REPO&state={state}\
                 &landing_from={from}"
            );
            let pages = [(key.to_hex(), draft.clone())].into_iter().collect();
            DataCiteTarget::new(&url, None)
                .unwrap()
                .with_landing_pages(pages)
                .landing_page(&key, "10.1234/x")
        };
        assert_eq!(
            landing_page("draft").unwrap(),
            Some("http://127.0.0.1:1/uploads/00000-00003".into())
        );
        for (state, reported) in [("publish", "findable"), ("register", "registered")] {
            let refused = landing_page(state).unwrap_err();
            let Failure::Rejected {
                status: 0,
                problems,
            } = &refused
            else {
                panic!("refused before anything is sent: {refused:?}")
            };
            let said = &problems[0].message;
            assert_eq!(problems[0].field, "url");
            for words in [
                &format!("no public landing page: this dataset's record on {from} is draft "),
                "00000-00003 (http://127.0.0.1:1/uploads/00000-00003), which only its owner sees",
                &format!("a {reported} DOI resolves for anyone and cannot be withdrawn"),
                "publish 00000-00003 at the repository and run `lodge verify` on this dataset",
                "or deposit it to the repository's publishing target",
                "or mint a draft DOI for now (state=draft)",
            ] {
                assert!(said.contains(words), "{words:?} in {said}");
            }
            // No metadata to fix: the same deposit goes through once the draft is public.
            assert!(waits_for_landing(&refused.to_string()), "{refused}");
        }
    }

    fn target(api: &str, state: &str) -> DataCiteTarget {
        let url = format!(
            "{api}?prefix=10.80000&repository=LAB.DATA&state={state}&url=https://example.org/{{key}}"
        );
        DataCiteTarget::new(&url, None).unwrap()
    }

    /// Open record and Copy link must lead somewhere, and doi.org knows no draft: the link
    /// follows the state the target creates a DOI in, or the state DataCite reports for the
    /// DOI a lookup finds.
    #[test]
    fn a_draft_doi_is_shown_in_fabrica_and_a_registered_one_through_doi_org() {
        let doi = "10.80000/xy68-wz53";
        for (api, draft, resolvable) in [
            (
                "https://api.datacite.org",
                "https://doi.datacite.org/dois/10.80000%2Fxy68-wz53",
                "https://doi.org/10.80000/xy68-wz53",
            ),
            (
                "https://api.test.datacite.org",
                "https://doi.test.datacite.org/dois/10.80000%2Fxy68-wz53",
                "https://handle.test.datacite.org/10.80000/xy68-wz53",
            ),
            (
                "http://127.0.0.1:8080",
                "http://127.0.0.1:8080/dois/10.80000/xy68-wz53",
                "http://127.0.0.1:8080/dois/10.80000/xy68-wz53",
            ),
        ] {
            let t = target(api, "draft");
            assert_eq!(t.record_url(doi, t.state), draft);
            for state in ["register", "publish"] {
                let t = target(api, state);
                assert_eq!(t.record_url(doi, t.state), resolvable);
            }
            for (reported, url) in [
                ("draft", draft),
                ("registered", resolvable),
                ("findable", resolvable),
            ] {
                let attributes = serde_json::json!({ "state": reported });
                assert_eq!(t.record_url(doi, state_of(&attributes)), url, "{reported}");
            }
            let unsaid = serde_json::json!({});
            assert_eq!(t.record_url(doi, state_of(&unsaid)), resolvable);
        }
    }
}
