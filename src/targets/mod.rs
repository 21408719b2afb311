//! Targets: the repositories Lodge deposits into, behind one trait.
//!
//! A target knows how to send a dataset's bytes, how to create its record with a conditional
//! write that the server arbitrates (invariant 3), how to look a content key up for
//! reconciliation, and how to turn what the server or the network said into a [`Failure`]
//! the engine can act on (invariant 5). The engine never sees HTTP; a target never sees the
//! store or the queue.

pub mod cleanup;
pub mod datacite;
pub mod description;
pub mod each_file;
pub mod failure;
pub mod holdings;
pub mod http;
pub mod invenio;
pub mod keyed_lock;
pub mod layout;
pub mod probe;
pub mod record;
pub mod s3;
pub mod sandbox;
pub mod secret;
pub mod stream;
pub mod webdav;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use crate::content::{ContentDocument, ContentKey, ManifestEntry};
pub use each_file::FilesStored;
pub use failure::{
    CONTENT_CHANGED, Failure, FailureClass, is_changed_since_scan, is_paused_for_credentials,
};
pub use holdings::{Discrepancy, FileHeld, Holdings, ReadBack};

/// What a repository calls a record once it exists.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordRef {
    /// The server's identifier (a sandbox number, a DOI, an object URL...).
    pub identifier: String,
    /// Where a person can look at the record, when the target has such a place.
    pub url: Option<String>,
}

/// A confirmed write: either this request created the record or it was already there.
/// Both are success (invariant 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landed {
    Created(RecordRef),
    /// Created as the next version of the record `of` (an earlier key of the dataset), on
    /// a target that links versions.
    NewVersion {
        record: RecordRef,
        of: String,
    },
    Existing(RecordRef),
    /// The record existed, and this deposit brought it to what the target makes of it
    /// (`change`: "it was a draft DOI and is findable now", say).
    Updated {
        record: RecordRef,
        change: String,
    },
}

impl Landed {
    pub fn record(&self) -> &RecordRef {
        match self {
            Landed::Created(r)
            | Landed::NewVersion { record: r, .. }
            | Landed::Existing(r)
            | Landed::Updated { record: r, .. } => r,
        }
    }
}

/// Everything a target needs to deposit one dataset.
pub struct DepositRequest<'a> {
    pub key: ContentKey,
    pub document: &'a ContentDocument,
    /// The dataset's folder on this machine; manifest paths are relative to it.
    pub root: &'a Path,
    /// The records this target made of earlier versions of the same dataset (its earlier
    /// keys), newest first, for a target that links versions ([`Target::links_versions`]):
    /// the new record is made the next version of the newest one still there. Not part of
    /// the key: the same content is the same deposit whichever record came before it.
    pub earlier_records: &'a [EarlierRecord],
    /// The files an earlier attempt of the same job got through, which this one does not
    /// send again (targets that send each file apart); it notes those it sends.
    pub files_stored: &'a FilesStored,
}

impl DepositRequest<'_> {
    /// The record this target made of the dataset's latest earlier version, if any.
    pub fn earlier_record(&self) -> Option<&str> {
        self.earlier_records.first().map(|r| r.identifier.as_str())
    }
}

/// A record a target made of an earlier version of a dataset: its identifier, and the key
/// it was deposited under, which a target that marks its records with their key (InvenioRDM's
/// subject `lodge:KEY`) finds on it while it is still that dataset's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierRecord {
    pub identifier: String,
    pub key: ContentKey,
}

/// Reports bytes sent so far, for progress bars. Cheap to call often.
pub type ProgressSink = Arc<dyn Fn(u64) + Send + Sync>;

/// How long a signed link to a record ([`Target::link_to_open`]) works: long enough to read
/// the record, short enough that a link left in a browser's history soon stops working.
pub const RECORD_LINK_LIFETIME: std::time::Duration = std::time::Duration::from_secs(3600);

/// One repository Lodge can deposit into.
#[async_trait]
pub trait Target: Send + Sync {
    /// The target's identity in the dedup scope (target, operation, key): kind + endpoint +
    /// account/bucket/prefix, never credentials, so it stays stable when they rotate.
    fn scope_id(&self) -> &str;

    /// A short human label ("Local sandbox at 127.0.0.1:8080").
    fn label(&self) -> String;

    /// Whether it sends a token given on the command line for this run (a sandbox started
    /// with `--token`): the store remembers it, for the commands suggested later.
    fn sends_run_token(&self) -> bool {
        false
    }

    /// The URL that opens this target again as `--target` takes it (kind, endpoint and
    /// options, never a credential), which the store keeps so that `lodge retry` can. The
    /// scope id is such a URL for every kind but DataCite, whose options it leaves out.
    fn target_url(&self) -> String {
        self.scope_id().to_string()
    }

    /// The link a web browser opens for `record_url`, a record's URL this target gave, when
    /// the URL itself would be refused: S3 signs it in its query (a presigned GET, good for
    /// [`RECORD_LINK_LIFETIME`]), since a bucket is most often private. `None` means open
    /// the URL as it is: the default, and the answer for a URL that is not this target's.
    fn link_to_open(&self, _record_url: &str) -> Option<String> {
        None
    }

    /// Send the data files, skipping those the server already holds. Bytes are hashed as
    /// they are sent; a file whose bytes no longer match the manifest fails with
    /// [`Failure::Changed`] and nothing of it is committed on the server.
    async fn upload(
        &self,
        request: &DepositRequest<'_>,
        progress: ProgressSink,
    ) -> Result<(), Failure>;

    /// Create the record for `request.key` with a conditional write. "Already exists" is
    /// [`Landed::Existing`], never an error.
    async fn create_record(&self, request: &DepositRequest<'_>) -> Result<Landed, Failure>;

    /// Look the key up on the server: `Ok(None)` when no record exists for it. Targets that
    /// cannot look a key up return `Ok(None)` and say so in [`Target::can_lookup`].
    async fn lookup(&self, key: &ContentKey) -> Result<Option<RecordRef>, Failure>;

    /// Whether [`Target::lookup`] can find a record by key (used to reconcile before a retry).
    fn can_lookup(&self) -> bool;

    /// Reconcile before a retry: the record of `key` if the server has it, with what a
    /// deposit of `document` does beyond making the record done too (InvenioRDM: asking
    /// its communities to include it), since a reconciled deposit is recorded without
    /// [`Target::create_record`]. By default [`Target::lookup`].
    async fn reconcile(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
    ) -> Result<Option<RecordRef>, Failure> {
        let _ = document;
        self.lookup(key).await
    }

    /// Read back what the server holds of the deposit of `key` (`lodge verify`): its record,
    /// and each file of `document`'s manifest by size or, with [`ReadBack::Bytes`], by the
    /// SHA-256 of its bytes. A file that is not there is [`FileHeld::Missing`]; a failure
    /// is only for a server that cannot be asked. `progress` is told of the bytes read back
    /// as they come (nothing when reading sizes), for a bar over a long download.
    async fn holdings(
        &self,
        key: &ContentKey,
        document: &ContentDocument,
        read: ReadBack,
        progress: &ProgressSink,
    ) -> Result<Holdings, Failure>;

    /// Whether the server keeps the dataset's files, so a check can read them back
    /// (`lodge verify --bytes`, the window's Verify bytes). Not DataCite: it keeps a DOI's
    /// metadata, and the files are wherever its landing page serves them.
    fn keeps_files(&self) -> bool {
        true
    }

    /// Whether the repository itself keeps restricted or embargoed files from readers
    /// (InvenioRDM, Zenodo). Elsewhere the files are as readable as the store's own
    /// permissions make them, and the record only notes the access chosen: Lodge says so
    /// before depositing such a dataset there.
    fn enforces_file_access(&self) -> bool {
        false
    }

    /// Whether what this target makes is a draft for a person to publish (a DataCite DOI
    /// in the default `state=draft`, an InvenioRDM record with `state=draft`), so the window
    /// says so beside a deposit's status.
    fn makes_drafts(&self) -> bool {
        false
    }

    /// In the folders layout ([`layout::FileLayout::Folders`]), the address under which
    /// each dataset's folder `datasets/TITLE-KEY12/` is (`s3://bucket/prefix/`, a WebDAV
    /// folder's URL), for a person to find it; `None` for a target that keeps files by
    /// digest or in its records.
    fn datasets_base(&self) -> Option<String> {
        None
    }

    /// Where this target keeps `entry` of the deposit of `key`, as a person would look for
    /// it (`s3://bucket/prefix/blobs/sha256/HEX`, a WebDAV file's URL), for `lodge verify`
    /// to say where a damaged file is; `None` where files have no address of their own.
    fn file_address(
        &self,
        _key: &ContentKey,
        _document: &ContentDocument,
        _entry: &ManifestEntry,
    ) -> Option<String> {
        None
    }

    /// For a deposit this target left a draft (record `record`, of `key`): whether it was
    /// published since, on the repository's own pages; `None` where the target cannot tell
    /// (or makes no drafts). Asked by a check (`lodge verify`, the window's Verify).
    async fn draft_published(
        &self,
        _key: &ContentKey,
        _record: &str,
    ) -> Result<Option<bool>, Failure> {
        Ok(None)
    }

    /// Whether [`Target::put_back`] can send a landed deposit's lost files again and leave
    /// the record as it is (`lodge verify --repair`, the window's Repair); `Err` says why
    /// not and what to do instead. So it is for targets that keep each file apart from the
    /// record with conditional writes (the sandbox, S3 and WebDAV), and for an InvenioRDM
    /// draft, whose files may change until it is published.
    fn files_can_be_put_back(&self) -> Result<(), &'static str> {
        Err("this kind of target keeps no files of its own to send again")
    }

    /// Send again the files `lost` (manifest paths) that a check found missing from the
    /// landed deposit recorded as `record`, and nothing else (`lodge verify --repair`, the
    /// window's Repair); only asked where [`Target::files_can_be_put_back`] is `Ok`. By
    /// default the deposit's own upload, whose conditional writes add only what the
    /// server lacks.
    async fn put_back(
        &self,
        request: &DepositRequest<'_>,
        _record: &str,
        _lost: &[String],
        progress: ProgressSink,
    ) -> Result<(), Failure> {
        self.upload(request, progress).await
    }

    /// Whether [`Target::upload`] replaces a file the server holds with another size under
    /// its digest's name (so not that content: most often the first part of it, what a
    /// cut-off upload leaves on servers that write a body as it arrives), so a repair can
    /// send such a file again too. Only WebDAV: the other targets write a whole file or
    /// none.
    fn replaces_wrong_size_files(&self) -> bool {
        false
    }

    /// Whether this target makes a dataset's new key a new version of the record its
    /// earlier key got ([`DepositRequest::earlier_record`]), as InvenioRDM and Zenodo do;
    /// the engine looks that record up only for such a target.
    fn links_versions(&self) -> bool {
        false
    }

    /// Whether a repair writes this target's record of a deposit again when it is gone
    /// (`lodge verify --repair`): where the record is kept under a name its key alone
    /// decides (S3, WebDAV), written again it is the record Lodge recorded, at the same
    /// identifier. Not where the server mints identifiers (the sandbox, InvenioRDM,
    /// DataCite): there another record would be a second one.
    fn rewrites_gone_records(&self) -> bool {
        false
    }

    /// Why this target would refuse `request` before sending anything, where that is known
    /// without asking the server (DataCite with `landing_from=` and no landing page for
    /// its key; Zenodo and more files than a record takes); `lodge deposit --dry-run` says
    /// so.
    fn refusal_before_sending(&self, _request: &DepositRequest<'_>) -> Option<Failure> {
        None
    }

    /// For `lodge deposit --dry-run`: what a deposit of `key`, not recorded here, would do
    /// with what other targets' deposits of it made (`elsewhere`: each one's target and
    /// identifier), when that is more than "create". DataCite: a DOI a drafting target of
    /// the same prefix minted is raised here, not minted again.
    fn plan_beside(&self, _key: &ContentKey, _elsewhere: &[(String, String)]) -> Option<String> {
        None
    }

    /// How the server keeps a second record of one key from being made, in a sentence, for
    /// the default [`Target::probe`] to report.
    fn duplicate_guard(&self) -> &'static str {
        "this kind of target always writes records with If-None-Match: *"
    }

    /// Check the target for `lodge target test` (and the GUI's "Test connection"): can it be
    /// reached, are the credentials accepted, does it honour conditional writes. The default
    /// looks a key up, which checks the first two.
    async fn probe(&self) -> probe::ProbeReport {
        probe_by_lookup(self).await
    }
}

/// [`Target::probe`]'s default, for a target's own probe to begin with: looks up a key no
/// deposit has, which checks that the server answers and accepts the credentials.
pub async fn probe_by_lookup<T: Target + ?Sized>(target: &T) -> probe::ProbeReport {
    let mut report = probe::ProbeReport::default();
    let nobody = ContentKey(crate::content::Sha256Hex([0; 32]));
    match target.lookup(&nobody).await {
        Ok(_) => {
            report.pass("reachable", "the server answers");
            report.pass("credentials", "a lookup was accepted");
            report.pass("conditional write", target.duplicate_guard());
        }
        Err(f @ Failure::Unauthorized { .. }) => {
            report.pass("reachable", "the server answers");
            report.fail("credentials", f.to_string());
        }
        Err(f) => report.fail("reachable", f.to_string()),
    }
    report
}

/// Why a target URL cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TargetUrlError {
    #[error("'{url}' is not a target URL: {reason}. Example: {}", example_url(.url))]
    Malformed { url: String, reason: String },
    #[error(
        "'{url}' uses the unknown target kind '{kind}'. Known kinds: sandbox+http(s), datacite+https, zenodo+https, invenio+https"
    )]
    UnknownKind { url: String, kind: String },
}

/// A target URL of the kind `url` begins with, to show beside what is wrong with it: the
/// local sandbox's for any other.
fn example_url(url: &str) -> &'static str {
    match url
        .split_once('+')
        .map(|(kind, _)| kind.to_ascii_lowercase())
    {
        Some(kind) if kind == "datacite" => {
            "datacite+https://api.datacite.org?prefix=10.12345&repository=ORG.REPO"
        }
        Some(kind) if kind == "zenodo" => "zenodo+https://zenodo.org",
        Some(kind) if kind == "invenio" => "invenio+https://inveniordm.example.org",
        _ => "sandbox+http://127.0.0.1:8080",
    }
}

/// The kinds of [`open_target`]'s URLs whose one credential is a token (`KIND+https://...`):
/// given with each run (`--token`), or stored with a named target.
pub const TOKEN_TARGET_KINDS: [&str; 3] = ["datacite", "zenodo", "invenio"];

/// Whether `url` is of one of the [`TOKEN_TARGET_KINDS`].
pub fn is_token_target_url(url: &str) -> bool {
    url.split_once('+')
        .is_some_and(|(kind, _)| TOKEN_TARGET_KINDS.contains(&&*kind.to_ascii_lowercase()))
}

/// Whether the target with identity `scope_id` leaves what it deposits as drafts, not
/// public until a person publishes them ([`Target::makes_drafts`], read from the identity
/// alone): an InvenioRDM or Zenodo target with `?state=draft`, and a DataCite target
/// without a `?state=` (its DOIs are drafts by default).
pub fn scope_makes_drafts(scope_id: &str) -> bool {
    match scope_id.split_once('+').map(|(kind, _)| kind) {
        Some("invenio" | "zenodo") => scope_id.ends_with("?state=draft"),
        Some("datacite") => !scope_id.contains("?state="),
        _ => false,
    }
}

/// The identities of the targets whose records of one dataset are versions of one work with
/// `scope_id`'s: itself, and on an InvenioRDM or Zenodo site its drafting or publishing
/// sibling (`?state=draft` or not). A new key deposited to either is the next version of
/// the newest record an earlier key got on both; else a dataset drafted on one and, changed,
/// sent to the other would be two works (two concept DOIs).
pub fn same_work_scopes(scope_id: &str) -> Vec<String> {
    match scope_id.split_once('+').map(|(kind, _)| kind) {
        Some("invenio" | "zenodo") => {
            let site = scope_id.strip_suffix("?state=draft").unwrap_or(scope_id);
            vec![site.to_string(), format!("{site}?state=draft")]
        }
        _ => vec![scope_id.to_string()],
    }
}

/// The records deposits to publishing targets hold, by site and identifier. A deposit a
/// drafting target made whose record is among them was published since by a deposit of
/// the same key to a target of the same site that publishes (InvenioRDM publishes the draft
/// it finds by the key, keeping its id; DataCite raises the DOI the key names): it is a
/// draft no more, and is cited.
#[derive(Clone, Debug, Default)]
pub struct PublishedRecords(std::collections::HashMap<(String, String), Option<String>>);

impl PublishedRecords {
    /// From recorded results: each one's target identity, record identifier and address.
    pub fn from_results<'a>(
        results: impl IntoIterator<Item = (&'a str, &'a str, Option<&'a str>)>,
    ) -> Self {
        let mut published = PublishedRecords::default();
        for (scope_id, identifier, url) in results {
            published.note(scope_id, identifier, url);
        }
        published
    }

    /// Take in a deposit that landed as `identifier` (at `url`) on `scope_id`.
    pub fn note(&mut self, scope_id: &str, identifier: &str, url: Option<&str>) {
        if !scope_makes_drafts(scope_id) {
            let known = (self.0)
                .entry((site_of(scope_id).to_string(), identifier.to_string()))
                .or_default();
            if known.is_none() {
                *known = url.map(str::to_string);
            }
        }
    }

    /// Take in a drafting target's deposit (`identifier` on `scope_id`) that a check found
    /// published since on the repository's pages ([`Target::draft_published`]). Its public
    /// address is the one the site gives what it publishes ([`published_page`]), unless a
    /// deposit to the site's publishing target recorded one.
    pub fn note_published_draft(&mut self, scope_id: &str, identifier: &str) {
        let known = (self.0)
            .entry((site_of(scope_id).to_string(), identifier.to_string()))
            .or_default();
        if known.is_none() {
            *known = published_page(scope_id, identifier);
        }
    }

    /// Whether the deposit that landed as `identifier` on `scope_id` is a draft still, as
    /// far as Lodge knows: made by a drafting target, and not published since.
    pub fn is_draft(&self, scope_id: &str, identifier: Option<&str>) -> bool {
        scope_makes_drafts(scope_id)
            && !identifier.is_some_and(|id| {
                (self.0).contains_key(&(site_of(scope_id).to_string(), id.to_string()))
            })
    }

    /// The address of the published record a drafting target's deposit (`identifier` on
    /// `scope_id`) became, once Lodge knows it is published: what to cite and link it by,
    /// rather than the draft's page, which is its owner's.
    pub fn public_url(&self, scope_id: &str, identifier: &str) -> Option<&str> {
        (self.0)
            .get(&(site_of(scope_id).to_string(), identifier.to_string()))?
            .as_deref()
    }
}

/// Where the public sees record `identifier` of the target with identity `scope_id` once
/// it is published: an InvenioRDM or Zenodo record's page, a DataCite DOI's resolver
/// address. What a draft's page (what its deposit recorded) gives way to once a check found
/// the draft published since. `None` for a target that makes no drafts.
pub fn published_page(scope_id: &str, identifier: &str) -> Option<String> {
    invenio::published_record_page(scope_id, identifier)
        .or_else(|| datacite::resolvable_page(scope_id, identifier))
}

/// A target identity without its options: the site (and for DataCite the prefix) that a
/// drafting target and its publishing sibling share.
fn site_of(scope_id: &str) -> &str {
    scope_id.split('?').next().unwrap_or(scope_id)
}

/// `url` with its kind and scheme (all before `://`) in lower case: a scheme means the same
/// whatever its case (RFC 3986), so `SANDBOX+HTTP://host` is `sandbox+http://host`.
pub fn with_lowercase_scheme(url: &str) -> std::borrow::Cow<'_, str> {
    match url.split_once("://") {
        Some((scheme, rest)) if scheme.chars().any(|c| c.is_ascii_uppercase()) => {
            format!("{}://{rest}", scheme.to_ascii_lowercase()).into()
        }
        _ => url.into(),
    }
}

/// Open the target a URL names, with an optional bearer token.
pub fn open_target(url: &str, token: Option<String>) -> Result<Arc<dyn Target>, TargetUrlError> {
    let url = &*with_lowercase_scheme(url);
    if let Some((shown, reason)) = http::credentials_in_url(url) {
        return Err(TargetUrlError::Malformed { url: shown, reason });
    }
    let Some((kind, rest)) = url.split_once('+') else {
        return Err(TargetUrlError::Malformed {
            url: url.into(),
            reason: "it has no kind prefix such as 'sandbox+'".into(),
        });
    };
    match kind {
        "sandbox" => Ok(Arc::new(sandbox::SandboxTarget::new(rest, token).map_err(
            |reason| TargetUrlError::Malformed {
                url: url.into(),
                reason,
            },
        )?)),
        "datacite" => Ok(Arc::new(
            datacite::DataCiteTarget::new(rest, token).map_err(|reason| {
                TargetUrlError::Malformed {
                    url: url.into(),
                    reason,
                }
            })?,
        )),
        "zenodo" | "invenio" => {
            let kind = if kind == "zenodo" {
                "zenodo"
            } else {
                "invenio"
            };
            Ok(Arc::new(
                invenio::InvenioTarget::new(kind, rest, token).map_err(|reason| {
                    TargetUrlError::Malformed {
                        url: url.into(),
                        reason,
                    }
                })?,
            ))
        }
        other => Err(TargetUrlError::UnknownKind {
            url: url.into(),
            kind: other.into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sites_drafting_and_publishing_targets_hold_one_works_versions() {
        for scope in [
            "zenodo+https://zenodo.org:443",
            "zenodo+https://zenodo.org:443?state=draft",
        ] {
            assert_eq!(
                same_work_scopes(scope),
                [
                    "zenodo+https://zenodo.org:443",
                    "zenodo+https://zenodo.org:443?state=draft"
                ]
            );
        }
        assert_eq!(
            same_work_scopes("sandbox+http://127.0.0.1:8080"),
            ["sandbox+http://127.0.0.1:8080"]
        );
    }

    #[test]
    fn a_draft_is_published_by_a_deposit_of_the_same_record_to_the_same_sites_publisher() {
        let drafts = "invenio+https://rdm.example.org?state=draft";
        let publisher = "invenio+https://rdm.example.org";
        let other_site = "invenio+https://other.example.org";
        let mut published = PublishedRecords::from_results([(drafts, "abcd-1234", None)]);
        assert!(published.is_draft(drafts, Some("abcd-1234")));
        published.note(other_site, "abcd-1234", None);
        assert!(
            published.is_draft(drafts, Some("abcd-1234")),
            "another site"
        );
        published.note(
            publisher,
            "abcd-1234",
            Some("https://rdm.example.org/records/abcd-1234"),
        );
        assert_eq!(
            published.public_url(drafts, "abcd-1234"),
            Some("https://rdm.example.org/records/abcd-1234")
        );
        assert!(!published.is_draft(drafts, Some("abcd-1234")));
        assert!(
            published.is_draft(drafts, Some("efgh-5678")),
            "another record"
        );
        assert!(published.is_draft(drafts, None));
        assert!(
            !published.is_draft(publisher, Some("efgh-5678")),
            "never a draft"
        );

        let dois = "datacite+https://api.test.datacite.org/10.80000";
        let published = PublishedRecords::from_results([
            (dois, "10.80000/abc", None),
            (
                "datacite+https://api.test.datacite.org/10.80000?state=register",
                "10.80000/abc",
                None,
            ),
        ]);
        assert!(!published.is_draft(dois, Some("10.80000/abc")));
    }

    /// A draft's page (what its deposit recorded) is its owner's: once a check found the
    /// draft published since, it is cited and linked by the page the public sees.
    #[test]
    fn a_draft_published_since_is_cited_by_its_public_page_not_the_drafts() {
        for (drafts, record, public) in [
            (
                "invenio+http://127.0.0.1:8080?state=draft",
                "00000-00003",
                "http://127.0.0.1:8080/records/00000-00003",
            ),
            (
                "zenodo+https://zenodo.org:443?state=draft",
                "1234567",
                "https://zenodo.org/records/1234567",
            ),
            (
                "invenio+https://data.example.org:443/rdm?state=draft",
                "abcd-1234",
                "https://data.example.org/rdm/records/abcd-1234",
            ),
            (
                "datacite+https://api.datacite.org:443/10.1234",
                "10.1234/xy68-wz53",
                "https://doi.org/10.1234/xy68-wz53",
            ),
            (
                "datacite+https://api.test.datacite.org:443/10.80000",
                "10.80000/xy68-wz53",
                "https://handle.test.datacite.org/10.80000/xy68-wz53",
            ),
            (
                "datacite+http://127.0.0.1:8080/10.80000",
                "10.80000/xy68-wz53",
                "http://127.0.0.1:8080/dois/10.80000/xy68-wz53",
            ),
        ] {
            let mut published = PublishedRecords::from_results([(drafts, record, None)]);
            assert_eq!(published.public_url(drafts, record), None, "a draft still");
            published.note_published_draft(drafts, record);
            assert!(!published.is_draft(drafts, Some(record)));
            assert_eq!(
                published.public_url(drafts, record),
                Some(public),
                "{drafts}"
            );
        }
        // Where the site's publishing target recorded the record's page, that one.
        let drafts = "invenio+https://rdm.example.org:443?state=draft";
        let mut published = PublishedRecords::from_results([(
            "invenio+https://rdm.example.org:443",
            "abcd-1234",
            Some("https://rdm.example.org/records/abcd-1234?as=recorded"),
        )]);
        published.note_published_draft(drafts, "abcd-1234");
        assert_eq!(
            published.public_url(drafts, "abcd-1234"),
            Some("https://rdm.example.org/records/abcd-1234?as=recorded")
        );
    }

    #[test]
    fn the_identities_of_drafting_targets_say_so_as_the_targets_do() {
        for (url, drafts) in [
            ("invenio+https://rdm.example.org?state=draft", true),
            ("invenio+https://rdm.example.org", false),
            ("zenodo+https://zenodo.org?state=draft", true),
            (
                "datacite+https://api.test.datacite.org?prefix=10.80000&repository=X.Y",
                true,
            ),
            (
                "datacite+https://api.test.datacite.org?prefix=10.80000&repository=X.Y\
                 &state=publish&url=https://data.example.org/{key}",
                false,
            ),
            ("sandbox+http://127.0.0.1:8080", false),
        ] {
            let target = open_target(url, Some("t".into())).unwrap();
            assert_eq!(target.makes_drafts(), drafts, "{url}");
            assert_eq!(scope_makes_drafts(target.scope_id()), drafts, "{url}");
            // Named apart from the same place's publishing target.
            assert_eq!(target.label().contains(", drafts"), drafts, "{url}");
        }
    }

    #[test]
    fn every_token_target_kind_is_one_open_target_knows() {
        for kind in TOKEN_TARGET_KINDS {
            let url = format!("{kind}+https://repository.example.org");
            let known = !matches!(
                open_target(&url, Some("token".into())),
                Err(TargetUrlError::UnknownKind { .. })
            );
            assert!(known, "{kind} is listed but open_target does not know it");
        }
    }

    #[test]
    fn a_url_scheme_in_capitals_is_read_in_lower_case_and_nothing_else_changes() {
        assert_eq!(
            with_lowercase_scheme("SANDBOX+HTTP://Host:1/Path"),
            "sandbox+http://Host:1/Path"
        );
        assert_eq!(
            with_lowercase_scheme("S3://bucket/Prefix"),
            "s3://bucket/Prefix"
        );
        assert_eq!(
            with_lowercase_scheme("zenodo+https://zenodo.org"),
            "zenodo+https://zenodo.org"
        );
        assert_eq!(with_lowercase_scheme("My-Target"), "My-Target");
        assert!(is_token_target_url(
            "DataCite+https://api.test.datacite.org"
        ));
        let sandbox = open_target("Sandbox+HTTP://127.0.0.1:8080", None).unwrap();
        assert_eq!(sandbox.scope_id(), "sandbox+http://127.0.0.1:8080");
    }
}
