//! The InvenioRDM/Zenodo target against the sandbox's InvenioRDM emulation over real HTTP:
//! drafts found by the content key before anything is created, resumed drafts, publish
//! never retried blindly, validation terminal, wrong tokens pausing the target; and contract
//! tests holding the emulation and the client to InvenioRDM's documented examples.

mod support;

use std::sync::Arc;

use lodge::content::{FileAccess, Metadata};
use lodge::engine::repair::{Repair, repair_deposit};
use lodge::engine::verify::Verification;
use lodge::sandbox::{FaultConfig, InvenioAccount, RunningSandbox};
use lodge::store::{EventKind, JobState};
use lodge::targets::invenio::{draft_body, key_subject};
use lodge::targets::{ProgressSink, ReadBack, Target, is_paused_for_credentials, open_target};
use serde_json::{Value, json};
use support::fake::{Answer, FakeServer};
use support::proxy::{Action, Proxy, Rule};
use support::*;
use tokio_util::sync::CancellationToken;

fn invenio(sandbox: &RunningSandbox) -> Arc<dyn Target> {
    open_target(
        &sandbox.invenio_target_url(),
        Some(sandbox.invenio_account().token),
    )
    .expect("invenio target")
}

/// The same emulation as a target that leaves each deposit a draft for review.
fn invenio_drafts(sandbox: &RunningSandbox) -> Arc<dyn Target> {
    open_target(
        &format!("{}?state=draft", sandbox.invenio_target_url()),
        Some(sandbox.invenio_account().token),
    )
    .expect("invenio target leaving drafts")
}

fn example(name: &str) -> Value {
    let path = format!(
        "{}/tests/contract/invenio/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The draft body Lodge sends InvenioRDM for the dataset of key `key` in `store`.
fn body_sent(store: &lodge::store::Store, key: &lodge::content::ContentKey) -> Value {
    draft_body(key, &store.document(key).unwrap().unwrap())
}

/// A client of the emulation's API with the right token.
struct Api<'a> {
    sandbox: &'a RunningSandbox,
    http: reqwest::Client,
}

impl Api<'_> {
    fn new(sandbox: &RunningSandbox) -> Api<'_> {
        Api {
            sandbox,
            http: reqwest::Client::new(),
        }
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> reqwest::Response {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.sandbox.base_url()))
            .bearer_auth(self.sandbox.invenio_account().token);
        if let Some(b) = body {
            rb = rb.body(b);
        }
        rb.send().await.unwrap()
    }

    async fn json(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let resp = self
            .call(method, path, body.map(|b| b.to_string().into_bytes()))
            .await;
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// The record `job` deposited, as the emulation answers it; the job asserted to have
    /// made it.
    async fn deposited_record(&self, job: &lodge::store::JobRow) -> Value {
        assert_eq!(job.state, JobState::Deposited, "{job:?}");
        let id = job.identifier.clone().unwrap();
        let (status, record) = self
            .json(reqwest::Method::GET, &format!("/api/records/{id}"), None)
            .await;
        assert_eq!(status, 200, "{record}");
        record
    }

    /// A draft with one file committed, the three documented steps.
    async fn draft_with_file(&self, body: Value, key: &str, bytes: &[u8]) -> String {
        use reqwest::Method;
        let (status, draft) = self.json(Method::POST, "/api/records", Some(body)).await;
        assert_eq!(status, 201, "{draft}");
        let id = draft["id"].as_str().unwrap().to_string();
        self.commit_file(&id, key, bytes).await;
        id
    }

    /// The field errors InvenioRDM gives a draft made of `body` (made all the same, as
    /// InvenioRDM makes a draft with errors), as text.
    async fn draft_errors(&self, body: Value) -> String {
        use reqwest::Method;
        let (status, draft) = self.json(Method::POST, "/api/records", Some(body)).await;
        assert_eq!(status, 201, "{draft}");
        draft["errors"].to_string()
    }

    /// One file committed onto draft `id`.
    async fn commit_file(&self, id: &str, key: &str, bytes: &[u8]) {
        use reqwest::Method;
        let (status, _) = self
            .json(
                Method::POST,
                &format!("/api/records/{id}/draft/files"),
                Some(json!([{"key": key}])),
            )
            .await;
        assert_eq!(status, 201);
        let put = self
            .call(
                Method::PUT,
                &format!("/api/records/{id}/draft/files/{key}/content"),
                Some(bytes.to_vec()),
            )
            .await;
        assert_eq!(put.status(), 200);
        let (status, committed) = self
            .json(
                Method::POST,
                &format!("/api/records/{id}/draft/files/{key}/commit"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{committed}");
    }

    /// Publish draft `id`, as its page's Publish button does.
    async fn publish(&self, id: &str) {
        let (status, published) = self
            .json(
                reqwest::Method::POST,
                &format!("/api/records/{id}/draft/actions/publish"),
                None,
            )
            .await;
        assert_eq!(status, 202, "{published}");
    }

    /// A draft new version of published record `of`, as its web interface makes one.
    async fn new_version(&self, of: &str) -> Value {
        let (status, draft) = self
            .json(
                reqwest::Method::POST,
                &format!("/api/records/{of}/versions"),
                None,
            )
            .await;
        assert_eq!(status, 201, "{draft}");
        draft
    }

    /// Where draft `id` stands among its work's versions: (parent, index).
    async fn draft_version_of(&self, id: &str) -> (String, i64) {
        let (status, draft) = self
            .json(
                reqwest::Method::GET,
                &format!("/api/records/{id}/draft"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{draft}");
        (
            draft["parent"]["id"].as_str().unwrap().to_string(),
            draft["versions"]["index"].as_i64().unwrap(),
        )
    }

    /// Where published record `id` stands among its work's versions: (parent, index,
    /// is_latest).
    async fn version_of(&self, id: &str) -> (String, i64, bool) {
        let (status, record) = self
            .json(reqwest::Method::GET, &format!("/api/records/{id}"), None)
            .await;
        assert_eq!(status, 200, "{record}");
        (
            record["parent"]["id"].as_str().unwrap().to_string(),
            record["versions"]["index"].as_i64().unwrap(),
            record["versions"]["is_latest"].as_bool().unwrap(),
        )
    }
}

/// `lodge ARGS` on the lab's database, what it said.
async fn lodge_says(lab: &Lab, args: &[&str]) -> String {
    let mut cmd = lodge_in(lab);
    cmd.args(args);
    text(&run(cmd).await)
}

/// The items of `lodge status --json` on the lab's database.
async fn status_items(lab: &Lab) -> Vec<Value> {
    let mut cmd = lodge_in(lab);
    cmd.args(["status", "--json"]);
    let json: Value = serde_json::from_slice(&run(cmd).await.stdout).unwrap();
    json["items"].as_array().cloned().unwrap_or_default()
}

/// Dataset folder `n` deposited to `target`, then one of its files changed and the folder
/// rescanned: the dataset, its first record, and its new key.
async fn deposited_then_changed(
    lab: &Lab,
    store: &Arc<lodge::store::Store>,
    target: &Arc<dyn Target>,
    n: usize,
) -> ((i64, lodge::content::ContentKey), String) {
    let folder = lab.numbered_folder(n);
    let first = add(store, &folder, &metadata("Cores"));
    let jobs = deposit(store, target, &[first], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let again = rescanned_with(store, &folder, "id,value\n1,17\n");
    assert_eq!(again.0, first.0, "the same dataset");
    assert_ne!(again.1, first.1, "under a new key");
    (again, jobs[0].identifier.clone().unwrap())
}

/// Dataset folder `folder` ("Cores") with `csv` as its data.csv now, added again: the
/// dataset and its key.
fn rescanned_with(
    store: &lodge::store::Store,
    folder: &std::path::Path,
    csv: &str,
) -> (i64, lodge::content::ContentKey) {
    std::fs::write(folder.join("data.csv"), csv).unwrap();
    add(store, folder, &metadata("Cores"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_deposited_again_after_its_files_changed_becomes_the_next_version_of_its_record()
{
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &target, 1).await;

    let jobs = deposit(&store, &target, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let second = jobs[0].identifier.clone().unwrap();
    assert_ne!(second, first, "a record of its own");
    let created = |job: i64| logged(&store, job, EventKind::Created);
    assert_eq!(
        created(jobs[0].id),
        format!("created {second}, the next version of {first}")
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (2, 0),
        "two published, no draft left"
    );
    let api = Api::new(&sandbox);
    assert_eq!(api.version_of(&first).await, (first.clone(), 1, false));
    assert_eq!(
        api.version_of(&second).await,
        (first.clone(), 2, true),
        "the next version of the first record's work"
    );
    let (_, record) = api
        .json(
            reqwest::Method::GET,
            &format!("/api/records/{second}"),
            None,
        )
        .await;
    let subjects = record["metadata"]["subjects"].to_string();
    assert!(subjects.contains(&key_subject(&changed.1)), "{subjects}");
    assert_eq!(
        subjects.matches("lodge:").count(),
        1,
        "only its own key: {subjects}"
    );

    // Its link (the window's Open record) is a landing page naming the work's versions;
    // API clients get the record there.
    let url = jobs[0].url.clone().expect("a record link");
    assert!(url.ends_with(&format!("/records/{second}")), "{url}");
    let page = reqwest::Client::new()
        .get(&url)
        .header("Accept", "text/html")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<h1>Cores</h1>")
            && page.contains("version 2 of 2")
            && page.contains("Curie, Marie")
            && page.contains(&format!("<a href=\"/records/{first}\">Version 1</a>"))
            && page.contains(">data.csv</a>"),
        "{page}"
    );
    let json: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    assert_eq!(json["id"], second.as_str(), "{json}");

    // A dataset never deposited here is a work of its own.
    let other = add(&store, &lab.numbered_folder(2), &metadata("Other"));
    let jobs = deposit(&store, &target, &[other], fast_config()).await;
    let third = jobs[0].identifier.clone().unwrap();
    assert_eq!(api.version_of(&third).await, (third.clone(), 1, true));
    assert_eq!(created(jobs[0].id), format!("created {third}"));
}

/// On a drafting target, a dataset changed while its earlier draft waits for review is
/// not made a record of its own beside it (a second work, a second concept DOI once both
/// are published): the deposit is refused naming the draft and what to do, and once that
/// draft is published, depositing again makes the new content its next version.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_changed_dataset_waits_for_its_earlier_draft_to_be_published_then_becomes_its_next_version()
 {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let drafts = invenio_drafts(&sandbox);
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &drafts, 3).await;
    assert_eq!(sandbox.invenio_counts(), (0, 1), "one draft, for review");

    let jobs = deposit(&store, &drafts, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let why = jobs[0].last_error.clone().unwrap_or_default();
    assert!(
        why.contains(&format!(
            "this dataset's earlier content is draft {first} here, not published yet"
        )) && why.contains(&format!(
            "publish {first} ({}/uploads/{first})",
            sandbox.base_url().trim_end_matches('/')
        )),
        "the draft's page, for the command line too: {why}"
    );
    assert_eq!(jobs[0].attempts, 1, "not retried: a person decides");
    assert_eq!(sandbox.invenio_counts(), (0, 1), "no second draft");

    let api = Api::new(&sandbox);
    api.publish(&first).await;
    let jobs = deposit(&store, &drafts, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let second = jobs[0].identifier.clone().unwrap();
    assert_eq!(
        api.draft_version_of(&second).await,
        (first.clone(), 2),
        "the next version of the same work"
    );

    // That draft version discarded on its page, and the data changed again: the new
    // content is the work's next version still, not a work of its own.
    let (status, discarded) = api
        .json(
            reqwest::Method::DELETE,
            &format!("/api/records/{second}/draft"),
            None,
        )
        .await;
    assert!(status < 300, "discard {second}: HTTP {status} {discarded}");
    let third = rescanned_with(&store, &lab.numbered_folder(3), "id,value\n1,18\n");
    assert_eq!(third.0, changed.0);
    assert_ne!(third.1, changed.1);
    let jobs = deposit(&store, &drafts, &[third], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let third_id = jobs[0].identifier.clone().unwrap();
    assert_eq!(
        api.draft_version_of(&third_id).await,
        (first.clone(), 2),
        "the same work's next version still"
    );
}

/// The id of a draft discarded at the site (here the newest, which Lodge's messages tell
/// people to discard) is never given to another record, as InvenioRDM never gives one
/// twice: the next dataset's record gets an id of its own, and the discarded draft's
/// dataset, changed again, still becomes the next version of its own record, not of the
/// record that would have taken the id.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_id_of_a_discarded_newest_draft_is_not_reused_and_the_next_version_stays_in_its_own_work()
 {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let (drafts, publisher) = (invenio_drafts(&sandbox), invenio(&sandbox));
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &publisher, 5).await;
    let jobs = deposit(&store, &drafts, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let drafted = jobs[0].identifier.clone().unwrap();
    let api = Api::new(&sandbox);
    assert_eq!(api.draft_version_of(&drafted).await, (first.clone(), 2));
    let (status, discarded) = api
        .json(
            reqwest::Method::DELETE,
            &format!("/api/records/{drafted}/draft"),
            None,
        )
        .await;
    assert_eq!(status, 204, "discard {drafted}: {discarded}");

    let other = add(&store, &lab.numbered_folder(6), &metadata("Other"));
    let jobs = deposit(&store, &publisher, &[other], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let others = jobs[0].identifier.clone().unwrap();
    assert_ne!(
        others, drafted,
        "the discarded draft's id is not given again"
    );
    assert_ne!(others, first);
    assert_eq!(api.version_of(&others).await, (others.clone(), 1, true));

    let again = rescanned_with(&store, &lab.numbered_folder(5), "id,value\n1,19\n");
    assert_eq!(again.0, changed.0, "the same dataset");
    let jobs = deposit(&store, &publisher, &[again], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let latest = jobs[0].identifier.clone().unwrap();
    assert_eq!(
        api.version_of(&latest).await,
        (first.clone(), 2, true),
        "the next version of its own record's work"
    );
    assert_eq!(
        logged(&store, jobs[0].id, EventKind::Created),
        format!("created {latest}, the next version of {first}")
    );
    assert_eq!(
        api.version_of(&others).await,
        (others.clone(), 1, true),
        "the other dataset's record is a work of its own still"
    );
}

/// A site whose records were reset (here, a sandbox started again on the same address
/// with nothing in it) gives the id of a dataset's earlier record to another dataset's:
/// the dataset's next content is not made a new version of that record, which would join
/// it to someone else's work; the deposit is refused naming the record and the fixes, and
/// the dataset taken off the list and added again is a record of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_earlier_record_that_carries_another_datasets_key_is_not_given_a_new_version() {
    let lab = Lab::new();
    let before = lab.sandbox("sbx-before", FaultConfig::default()).await;
    let addr = before.addr();
    let target = invenio(&before);
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(8);
    let first = add(&store, &folder, &metadata("Cores"));
    let jobs = deposit(&store, &target, &[first], fast_config()).await;
    let earlier = jobs[0].identifier.clone().unwrap();
    before.shutdown().await;
    let sandbox = RunningSandbox::start(lodge::sandbox::SandboxConfig {
        addr,
        data_dir: lab.path("sbx-after"),
        token: None,
        faults: FaultConfig::default(),
    })
    .await
    .unwrap();
    let other = add(&store, &lab.numbered_folder(9), &metadata("Other"));
    let jobs = deposit(&store, &target, &[other], fast_config()).await;
    assert_eq!(
        jobs[0].identifier.as_deref(),
        Some(earlier.as_str()),
        "the reset site gives the id again"
    );

    let changed = rescanned_with(&store, &folder, "id,value\n1,20\n");
    assert_eq!(changed.0, first.0);
    let jobs = deposit(&store, &target, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "a person decides; no retry");
    let error = jobs[0].last_error.clone().unwrap();
    assert_all(
        &error,
        &[
            &format!("record {earlier} here is no longer this dataset's"),
            &format!("subject {}", key_subject(&first.1)),
            "lodge remove ",
            "then lodge add ",
        ],
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (1, 0),
        "no version of the other's"
    );

    let folder_text = folder.to_str().unwrap();
    lodge_says(&lab, &["remove", folder_text]).await;
    let added = lodge_says(&lab, &["add", folder_text]).await;
    assert!(added.contains("metadata taken from dataset"), "{added}");
    let again = store
        .datasets()
        .unwrap()
        .into_iter()
        .find(|d| d.metadata.title == "Cores")
        .unwrap();
    let jobs = deposit(
        &store,
        &target,
        &[(again.id, again.key.unwrap())],
        fast_config(),
    )
    .await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let own = jobs[0].identifier.clone().unwrap();
    let api = Api::new(&sandbox);
    assert_eq!(api.version_of(&own).await, (own.clone(), 1, true));
    assert_eq!(api.version_of(&earlier).await, (earlier.clone(), 1, true));
}

/// A site's drafting and publishing targets hold one work's versions: a dataset drafted
/// through one, changed, and sent to the other is refused while the draft waits for
/// review, and once that draft is published (on its page) becomes its work's next version,
/// not a work of its own (a second concept DOI).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dataset_drafted_then_changed_and_sent_to_the_sites_publishing_target_is_one_work() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let (drafts, publisher) = (invenio_drafts(&sandbox), invenio(&sandbox));
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &drafts, 4).await;

    // A dry run, which asks the site nothing, says what the deposit does either way.
    let mut dry_run = lodge_in(&lab);
    dry_run
        .args(["deposit", "--all", "--dry-run", "--target"])
        .arg(sandbox.invenio_target_url())
        .args(["--token", &sandbox.invenio_account().token]);
    let planned = text(&run(dry_run).await);
    assert_all(
        &planned,
        &[&format!(
            ", the next version of record {first} if it is published: Lodge last saw it as a \
             draft, and the deposit asks the site; while {first} is a draft it is refused \
             (publish {first} first)"
        )],
    );
    let jobs = deposit(&store, &publisher, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let why = jobs[0].last_error.clone().unwrap_or_default();
    assert!(
        why.contains(&format!(
            "this dataset's earlier content is draft {first} here, not published yet"
        )),
        "{why}"
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 1),
        "no record beside the draft"
    );

    let api = Api::new(&sandbox);
    api.publish(&first).await;
    let jobs = deposit(&store, &publisher, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let second = jobs[0].identifier.clone().unwrap();
    assert_eq!(
        api.version_of(&second).await,
        (first.clone(), 2, true),
        "the next version of the drafted record's work"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_attempt_that_stopped_after_asking_for_the_new_version_finds_that_draft_again() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &target, 3).await;
    // The crashed run asked for the new version and stopped there: a draft of the work,
    // still with the first version's metadata and key, and no files.
    let api = Api::new(&sandbox);
    let left = api.new_version(&first).await;
    assert_eq!(sandbox.invenio_counts(), (1, 1));

    let jobs = deposit(&store, &target, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(
        jobs[0].identifier.as_deref(),
        left["id"].as_str(),
        "the draft left behind was filled in and published"
    );
    assert_eq!(sandbox.invenio_counts(), (2, 0), "no other draft made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_version_someone_started_with_files_is_left_alone_and_the_deposit_is_a_conflict() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let (changed, first) = deposited_then_changed(&lab, &store, &target, 4).await;
    // Someone started a new version in the web interface and uploaded a file to it.
    let api = Api::new(&sandbox);
    let theirs = api.new_version(&first).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    api.commit_file(&theirs, "slides.pdf", b"%PDF their work")
        .await;

    let jobs = deposit(&store, &target, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "a person decides; no retry");
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains(&format!("record {first} has a draft new version, {theirs}"))
            && error.contains(&format!("publish or discard {theirs}, then deposit again")),
        "{error}"
    );
    let (_, draft) = api
        .json(
            reqwest::Method::GET,
            &format!("/api/records/{theirs}/draft"),
            None,
        )
        .await;
    assert!(
        !draft["metadata"]["subjects"]
            .to_string()
            .contains(&key_subject(&changed.1)),
        "their draft's metadata is untouched: {draft}"
    );
    assert_eq!(sandbox.invenio_counts(), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deposit_publishes_one_record_with_its_files_and_a_replay_sends_nothing() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Cores"));

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(
        sandbox.invenio_counts(),
        (1, 0),
        "one published record, no draft left"
    );
    let id = jobs[0].identifier.clone().unwrap();
    let (status, record) = Api::new(&sandbox)
        .json(reqwest::Method::GET, &format!("/api/records/{id}"), None)
        .await;
    assert_eq!(status, 200);
    let subjects = record["metadata"]["subjects"].to_string();
    assert!(subjects.contains(&key_subject(&ds.1)), "{subjects}");
    assert_eq!(sandbox.invenio_uploads(), 2, "two files, each sent once");

    let requests = sandbox.stats().requests;
    let again = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(again[0].state, JobState::Existing);
    assert_eq!(again[0].identifier, jobs[0].identifier);
    assert_eq!(sandbox.stats().requests, requests, "a replay sends nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_drafting_target_leaves_a_draft_with_every_file_and_a_publishing_one_publishes_it() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let drafts = invenio_drafts(&sandbox);
    let publisher = invenio(&sandbox);
    assert_ne!(
        drafts.scope_id(),
        publisher.scope_id(),
        "publishing a draft is a deposit of its own, not a replay of the draft"
    );
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Review first"));

    let drafted = deposit(&store, &drafts, &[ds], fast_config()).await;
    assert_eq!(drafted[0].state, JobState::Deposited, "{:?}", drafted[0]);
    let id = drafted[0].identifier.clone().unwrap();
    assert!(
        drafted[0]
            .url
            .as_deref()
            .unwrap()
            .ends_with(&format!("/uploads/{id}")),
        "the draft's page, where it is reviewed: {:?}",
        drafted[0].url
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 1),
        "a draft, nothing published"
    );
    assert_eq!(sandbox.invenio_uploads(), 2, "with both its files");
    // Its link (Open record) shows the draft to review.
    let draft_url = drafted[0].url.clone().unwrap();
    let page = |url: String| async move {
        let resp = reqwest::Client::new()
            .get(url)
            .header("accept", "text/html")
            .send()
            .await
            .unwrap();
        (resp.status(), resp.text().await.unwrap())
    };
    let (status, html) = page(draft_url.clone()).await;
    assert_eq!(status, 200, "{html}");
    // It names the request that publishes it, as a site's Publish button would.
    let publish = format!("/api/records/{id}/draft/actions/publish</code>");
    for part in [
        "Review first",
        "not published",
        "data.csv",
        "README.txt",
        &publish,
    ] {
        assert!(html.contains(part), "{part} in {html}");
    }
    // Checking it reads the draft's files back.
    let document = store.document(&ds.1).unwrap().unwrap();
    let quiet: lodge::targets::ProgressSink = Arc::new(|_| {});
    let held = drafts
        .holdings(&ds.1, &document, lodge::targets::ReadBack::Bytes, &quiet)
        .await
        .unwrap();
    assert_eq!(held.discrepancies(&document, &id), [], "the draft is whole");

    let requests = sandbox.stats().requests;
    let again = deposit(&store, &drafts, &[ds], fast_config()).await;
    assert_eq!(again[0].identifier.as_deref(), Some(id.as_str()));
    assert_eq!(sandbox.stats().requests, requests, "a replay sends nothing");

    // The command line says it is a draft, and gives no citation for it yet.
    let shown = lodge_says(&lab, &["show", &ds.0.to_string()]).await;
    assert_all(
        &shown,
        &["a draft, not public: publish it at the repository"],
    );
    assert!(!shown.contains("cite as"), "{shown}");
    // Nor in its JSON.
    let mut show = lodge_in(&lab);
    show.args(["show", &ds.0.to_string(), "--json"]);
    let json: Value = serde_json::from_slice(&run(show).await.stdout).unwrap();
    let draft = &json["deposits"][0];
    assert_eq!(draft["draft"], true, "{json:#}");
    assert!(draft["citation"].is_null(), "{json:#}");
    // Nor for a copy of it (the same key), which shares the draft.
    let copy = lab.folder(
        "copy-of-ds001",
        &[
            ("data.csv", b"id,value\n1,1\n"),
            ("README.txt", b"shared readme"),
        ],
    );
    let (copy_id, copy_key) = add(&store, &copy, &metadata("Review first"));
    assert_eq!(copy_key, ds.1, "the same content");
    let show_copy = |json: bool| {
        let mut show = lodge_in(&lab);
        show.args(["show", &copy_id.to_string()]);
        if json {
            show.arg("--json");
        }
        run(show)
    };
    let shown = text(&show_copy(false).await);
    assert_all(
        &shown,
        &[
            "(shared)",
            "a draft, not public: publish it at the repository",
        ],
    );
    assert!(!shown.contains("cite as"), "{shown}");
    let json: Value = serde_json::from_slice(&show_copy(true).await.stdout).unwrap();
    assert_eq!(
        json["deposited_through_copies"][0]["draft"], true,
        "{json:#}"
    );
    store.remove_dataset(copy_id).unwrap();
    let status = text(
        &run({
            let mut status = lodge_in(&lab);
            status.arg("status");
            status
        })
        .await,
    );
    assert_all(&status, &["a draft, not public"]);
    let json = run({
        let mut status = lodge_in(&lab);
        status.args(["status", "--json"]);
        status
    })
    .await;
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["items"][0]["draft"], true, "{json:#}");

    // Published by a deposit to the same site without state=draft: that draft, not a new one.
    let mut dry_run = lodge_in(&lab);
    dry_run
        .args(["deposit", "--all", "--dry-run", "--target"])
        .arg(sandbox.invenio_target_url())
        .args(["--token", &sandbox.invenio_account().token]);
    let out = run(dry_run).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[&format!(
            "publishing draft {id}, which the deposit to {} left",
            drafts.scope_id()
        )],
    );
    let published = deposit(&store, &publisher, &[ds], fast_config()).await;
    assert_eq!(
        published[0].state,
        JobState::Deposited,
        "{:?}",
        published[0]
    );
    assert_eq!(published[0].identifier.as_deref(), Some(id.as_str()));
    assert_eq!(sandbox.invenio_counts(), (1, 0), "the draft is the record");
    assert_eq!(sandbox.invenio_uploads(), 2, "no file sent again");
    let (status, html) = page(draft_url).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        html.contains("published"),
        "the draft's link leads to the record: {html}"
    );
    assert!(!html.contains("not published"), "{html}");
    let held = drafts
        .holdings(&ds.1, &document, lodge::targets::ReadBack::Sizes, &quiet)
        .await
        .unwrap();
    assert_eq!(
        held.discrepancies(&document, &id),
        [],
        "checked as the record now"
    );

    // The drafting target's deposit is that record, published: no longer called a draft,
    // and cited.
    let items = status_items(&lab).await;
    assert_eq!(items.len(), 2, "{items:#?}");
    assert!(items.iter().all(|i| i["draft"] == false), "{items:#?}");
    let shown = lodge_says(&lab, &["show", &ds.0.to_string()]).await;
    assert!(!shown.contains("a draft, not public"), "{shown}");
    assert!(shown.contains("cite as"), "{shown}");
    // By the record's address, the draft target's deposit too, not the draft's page.
    for cited in shown.lines().filter(|l| l.contains("cite as")) {
        assert!(cited.contains(&format!("/records/{id}")), "{shown}");
    }
}

/// A drafting target that finds the key's record already published (a deposit to the
/// site's publishing target made it) records that record, and it is not called a draft.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_drafting_target_that_finds_the_record_published_does_not_call_it_a_draft() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(
        &store,
        &lab.numbered_folder(1),
        &metadata("Published first"),
    );
    let published = deposit(&store, &invenio(&sandbox), &[ds], fast_config()).await;
    let id = published[0].identifier.clone().unwrap();
    let found = deposit(&store, &invenio_drafts(&sandbox), &[ds], fast_config()).await;
    assert!(found[0].state.is_landed(), "{:?}", found[0]);
    assert_eq!(found[0].identifier.as_deref(), Some(id.as_str()));
    assert_eq!(sandbox.invenio_counts(), (1, 0), "the one record, no draft");

    let items = status_items(&lab).await;
    assert_eq!(items.len(), 2, "{items:#?}");
    assert!(items.iter().all(|i| i["draft"] == false), "{items:#?}");
}

/// The command line's deposit says a drafting target's deposit is a draft, and no more once
/// the site's publishing target has published it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deposit_says_a_deposit_is_a_draft_until_it_is_published() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("Said a draft"));
    let deposit_to = |query: &str| {
        let mut deposit = lodge_in(&lab);
        deposit
            .args(["deposit", "--all", "--target"])
            .arg(format!("{}{query}", sandbox.invenio_target_url()))
            .args(["--token", &sandbox.invenio_account().token]);
        run(deposit)
    };
    let drafted = text(&deposit_to("?state=draft").await);
    let id = store.history().unwrap()[0].identifier.clone().unwrap();
    assert_all(&drafted, &[&format!("deposited ds001 -> {id} (as draft)")]);
    let published = text(&deposit_to("").await);
    assert_all(&published, &[&format!("deposited ds001 -> {id}\n")]);
    let again = text(&deposit_to("?state=draft").await);
    assert!(
        again.contains(&id) && !again.contains("(as draft)"),
        "{again}"
    );
}

/// A draft a person published on the repository's own pages is found so by the next check
/// (`lodge verify`): logged once, and from then on it is no draft, and is cited.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_published_on_the_sites_pages_is_found_so_by_verify_and_then_cited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(
        &store,
        &lab.numbered_folder(1),
        &metadata("Published by hand"),
    );
    let drafted = deposit(&store, &invenio_drafts(&sandbox), &[ds], fast_config()).await;
    let id = drafted[0].identifier.clone().unwrap();
    let verify = || {
        let mut verify = lodge_in(&lab);
        verify
            .args(["verify", "1", "--target"])
            .arg(format!("{}?state=draft", sandbox.invenio_target_url()))
            .args(["--token", &sandbox.invenio_account().token]);
        run(verify)
    };
    let status_draft = || async { status_items(&lab).await[0]["draft"].clone() };
    let checked = text(&verify().await);
    assert!(checked.contains("intact"), "{checked}");
    assert!(
        !checked.contains("published since"),
        "still a draft: {checked}"
    );
    assert_eq!(status_draft().await, true);

    let api = Api::new(&sandbox);
    api.publish(&id).await;
    let checked = text(&verify().await);
    assert_all(
        &checked,
        &[&format!(
            "published since on the repository's pages: {id} is public now, no draft"
        )],
    );
    assert_eq!(status_draft().await, false);
    let shown = lodge_says(&lab, &["show", "1"]).await;
    assert!(!shown.contains("a draft, not public"), "{shown}");
    // By the record's public page: the draft's (`/uploads/ID`) is its owner's, behind a
    // login on Zenodo.
    let cite = shown
        .lines()
        .find(|l| l.contains("cite as"))
        .unwrap_or_else(|| panic!("cited: {shown}"));
    let base = sandbox.base_url();
    assert!(cite.ends_with(&format!(" {base}/records/{id}")), "{cite}");
    let json: serde_json::Value =
        serde_json::from_str(&lodge_says(&lab, &["show", "1", "--json"]).await).unwrap();
    let citation = json["deposits"][0]["citation"].as_str().unwrap();
    assert!(
        citation.ends_with(&format!("{base}/records/{id}")),
        "{citation}"
    );
    // Known since: not asked, nor logged, again.
    let again = text(&verify().await);
    assert!(!again.contains("published since"), "{again}");
    let logged = store
        .events_for_job(drafted[0].id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Published)
        .count();
    assert_eq!(logged, 1);
}

/// A file lost from a draft left for review (removed on its page, say) is put back into
/// that draft by a repair, and no other draft is made; once the draft is published, its
/// files cannot change, and the repair says so instead of sending anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn repair_puts_a_file_back_into_the_draft_left_for_review_and_not_once_it_is_published() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let drafts = invenio_drafts(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Review first"));
    let jobs = deposit(&store, &drafts, &[ds], fast_config()).await;
    let draft = jobs[0].identifier.clone().unwrap();
    let document = store.document(&ds.1).unwrap().unwrap();
    let db = rusqlite::Connection::open(sandbox.data_dir().join("sandbox.db")).unwrap();
    let lose_data_csv = || {
        let lost = db.execute("DELETE FROM invenio_files WHERE key = 'data.csv'", []);
        assert_eq!(lost.unwrap(), 1);
    };
    let quiet: ProgressSink = Arc::new(|_| {});
    let repair = || {
        repair_deposit(
            drafts.as_ref(),
            &jobs[0],
            &document,
            ReadBack::Bytes,
            &quiet,
        )
    };

    lose_data_csv();
    let uploads = sandbox.invenio_uploads();
    let Repair::PutBack { files, after, .. } = repair().await else {
        panic!("the lost file goes back into the draft")
    };
    assert_eq!(files, ["data.csv"]);
    assert!(matches!(after, Verification::Intact(_)), "{after:?}");
    assert_eq!(sandbox.invenio_uploads(), uploads + 1, "that file alone");
    assert_eq!(sandbox.invenio_counts(), (0, 1), "still the one draft");

    lose_data_csv();
    let publish = format!("/api/records/{draft}/draft/actions/publish");
    let (status, _) = Api::new(&sandbox)
        .json(reqwest::Method::POST, &publish, None)
        .await;
    assert_eq!(status, 202, "published by hand on its page");
    let repaired = repair().await;
    let Repair::SendFailed { files, error, .. } = &repaired else {
        panic!("a published record's files cannot change: {repaired:?}")
    };
    assert_eq!(files, &["data.csv"]);
    assert!(
        error.contains(&format!("{draft} is no longer a draft waiting for review"))
            && error.contains("ask the repository's support"),
        "{error}"
    );
    assert_eq!(sandbox.invenio_uploads(), uploads + 1, "nothing sent");
}

#[test]
fn an_unknown_invenio_state_is_refused_naming_the_two_there_are() {
    let e = open_target("zenodo+https://zenodo.org?state=review", Some("t".into()))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("state 'review' is not one of draft"), "{e}");
}

/// A site's API address pasted as the target (`https://zenodo.org/api`) is refused naming
/// the site's own: Lodge adds `/api`, and twice every request was a 404, blamed on the
/// metadata.
#[test]
fn an_invenio_url_ending_in_api_is_refused_naming_the_sites_address() {
    for (given, site) in [
        ("zenodo+https://zenodo.org/api", "zenodo+https://zenodo.org"),
        (
            "invenio+https://api.example.org/rdm/api/?state=draft",
            "invenio+https://api.example.org/rdm",
        ),
    ] {
        let e = open_target(given, Some("t".into()))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains(&format!(
                "give the site's address without /api (Lodge adds it): {site}"
            )),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_machine_finds_the_published_record_by_key_instead_of_creating_one() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let folder = lab.numbered_folder(2);
    let mut ids = Vec::new();
    for machine in ["a.db", "b.db"] {
        let store = lab.store(machine);
        let ds = add(&store, &folder, &metadata("Shared"));
        let jobs = deposit(&store, &target, &[ds], fast_config()).await;
        assert!(jobs[0].state.is_landed(), "{:?}", jobs[0]);
        ids.push(jobs[0].identifier.clone().unwrap());
    }
    assert_eq!(ids[0], ids[1]);
    assert_eq!(sandbox.invenio_counts(), (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_left_behind_is_resumed_and_files_committed_with_the_same_md5_are_not_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(3);
    let ds = add(&store, &folder, &metadata("Resumed"));
    // A crashed earlier run: a draft with the key, README.txt committed, data.csv not.
    let document = store.document(&ds.1).unwrap().unwrap();
    let readme = std::fs::read(folder.join("README.txt")).unwrap();
    Api::new(&sandbox)
        .draft_with_file(draft_body(&ds.1, &document), "README.txt", &readme)
        .await;
    assert_eq!(sandbox.invenio_counts(), (0, 1));
    let uploads_before = sandbox.invenio_uploads();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(
        sandbox.invenio_counts(),
        (1, 0),
        "the draft was published, no new one"
    );
    assert_eq!(
        sandbox.invenio_uploads() - uploads_before,
        1,
        "only data.csv was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn publish_that_answers_504_after_it_happened_is_reconciled_not_repeated() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    sandbox.set_invenio_account(InvenioAccount {
        publish_times_out: true,
        ..InvenioAccount::default()
    });
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(4), &metadata("Slow gateway"));
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Existing, "{:?}", jobs[0]);
    assert_eq!(sandbox.invenio_counts(), (1, 0));
    // The 504 is not taken at its word: the server is read again, shows the record
    // published, and the deposit ends there, without a second publish.
    assert_eq!(jobs[0].attempts, 1, "{:?}", jobs[0]);
    let events = store.events_for_job(jobs[0].id).unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.kind == EventKind::Existing && e.message.contains("already exists")),
        "{events:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn validation_errors_are_terminal_with_the_servers_field_messages() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let no_publisher = Metadata {
        publisher: String::new(),
        ..metadata("No publisher")
    };
    let ds = add(&store, &lab.numbered_folder(5), &no_publisher);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1);
    assert_eq!(jobs[0].last_status, Some(400));
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("metadata.publisher") && error.contains("Missing data"),
        "{error}"
    );
    assert_eq!(sandbox.invenio_counts().0, 0, "nothing published");
}

/// A dataset of one (sparse) file a byte over the emulation's 64 MiB.
fn one_file_over_the_limit(
    lab: &Lab,
    store: &lodge::store::Store,
) -> (i64, lodge::content::ContentKey) {
    let folder = lab.folder("large", &[]);
    std::fs::create_dir_all(&folder).unwrap();
    let file = std::fs::File::create(folder.join("scan.tif")).unwrap();
    file.set_len(64 * 1024 * 1024 + 1).unwrap();
    add(store, &folder, &metadata("Large scan"))
}

/// The emulation keeps files in its database, up to 64 MiB each. A larger one is refused
/// once, for good (sending it again sends the same size), its draft discarded, in words that
/// say the limit and where large files go, not the web framework's "length limit exceeded".
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_file_over_the_emulations_limit_is_refused_once_naming_the_limit_and_the_fix() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let ds = one_file_over_the_limit(&lab, &store);

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    assert_eq!(jobs[0].last_status, Some(413));
    let error = jobs[0].last_error.clone().unwrap();
    for words in [
        "the server takes no request this large",
        "scan.tif is larger than the 64 MiB this InvenioRDM emulation keeps a file",
        "deposit large files to the local sandbox target",
    ] {
        assert!(error.contains(words), "'{words}' in: {error}");
    }
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 0),
        "nothing published, and the draft made for it discarded, no stray upload left"
    );
}

/// A draft of the key made before this attempt (by an earlier one, or edited at the site
/// since) is not discarded when a file it is sent is refused for good: the refusal names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_made_before_is_kept_and_named_when_its_file_is_refused_for_good() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let ds = one_file_over_the_limit(&lab, &store);
    let api = Api::new(&sandbox);
    let (status, draft) = api
        .json(
            reqwest::Method::POST,
            "/api/records",
            Some(body_sent(&store, &ds.1)),
        )
        .await;
    assert_eq!(status, 201, "{draft}");
    let id = draft["id"].as_str().unwrap().to_string();

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains(&format!("draft {id} stays at ")) && error.contains("with the files sent"),
        "{error}"
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 1),
        "the draft made before stays"
    );
}

/// A dataset whose big.bin is big enough that most of it still waits on this machine while
/// its upload is held: the dataset, and its folder.
fn dataset_with_a_big_file(
    lab: &Lab,
    store: &lodge::store::Store,
) -> ((i64, lodge::content::ContentKey), std::path::PathBuf) {
    let big: Vec<u8> = (0..24u32 << 20).map(|i| (i % 251) as u8).collect();
    let folder = lab.folder("growing", &[("big.bin", &big), ("notes.txt", b"n")]);
    (add(store, &folder, &metadata("Changing")), folder)
}

/// `ds` deposited to the emulation through a proxy that holds the upload of big.bin, whose
/// end someone rewrites while its start is on the wire: the job.
async fn deposited_while_its_big_file_changes(
    sandbox: &RunningSandbox,
    store: &Arc<lodge::store::Store>,
    ds: (i64, lodge::content::ContentKey),
    folder: &std::path::Path,
) -> lodge::store::JobRow {
    let proxy = Proxy::start(&sandbox.base_url()).await;
    let target = open_target(
        &format!("invenio+{}", proxy.url()),
        Some(sandbox.invenio_account().token),
    )
    .unwrap();
    let (reached, release) = (CancellationToken::new(), CancellationToken::new());
    proxy.add_rule(Rule {
        method: "PUT",
        path_contains: "big.bin/content".into(),
        action: Action::Hold {
            reached: reached.clone(),
            release: release.clone(),
        },
        times: 1,
    });
    let run = {
        let store = store.clone();
        tokio::spawn(async move { deposit(&store, &target, &[ds], fast_config()).await })
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), reached.cancelled())
        .await
        .expect("the upload of big.bin started");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(folder.join("big.bin"))
            .unwrap();
        file.seek(SeekFrom::End(-1024)).unwrap();
        file.write_all(&[0xEE; 1024]).unwrap();
    }
    release.cancel();
    let jobs = run.await.unwrap();
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    jobs[0].clone()
}

/// A file changed while it is sent stops the deposit for a rescan, whose key is another:
/// the draft this attempt made for the key scanned would never be taken up, so it is
/// discarded, and no stray upload stays in the account.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_draft_made_for_a_file_changed_while_sent_is_discarded() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let (ds, folder) = dataset_with_a_big_file(&lab, &store);

    let job = deposited_while_its_big_file_changes(&sandbox, &store, ds, &folder).await;
    let error = job.last_error.clone().unwrap();
    assert_all(
        &error,
        &["changed since scan: ", "big.bin", "content changed"],
    );
    assert!(!error.contains("stays"), "{error}");
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 0),
        "nothing published, and the draft made for it discarded"
    );
}

/// A draft of the key made before this attempt (by an earlier one, or edited at the site
/// since) is not discarded when a file changes while it is sent: the message names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_made_before_is_kept_and_named_when_a_file_changes_while_sent() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let (ds, folder) = dataset_with_a_big_file(&lab, &store);
    let (status, draft) = Api::new(&sandbox)
        .json(
            reqwest::Method::POST,
            "/api/records",
            Some(body_sent(&store, &ds.1)),
        )
        .await;
    assert_eq!(status, 201, "{draft}");
    let id = draft["id"].as_str().unwrap().to_string();

    let job = deposited_while_its_big_file_changes(&sandbox, &store, ds, &folder).await;
    let error = job.last_error.clone().unwrap();
    assert_all(
        &error,
        &[
            "changed since scan: ",
            "content changed",
            &format!("draft {id} stays at InvenioRDM with the files sent so far"),
        ],
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 1),
        "the draft made before stays"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_license_is_sent_by_its_spdx_id_or_as_a_custom_license_by_its_text() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let licensed = |n: usize, license: &str| {
        let m = Metadata {
            license: Some(license.into()),
            ..metadata(&format!("Licensed {n}"))
        };
        add(&store, &lab.numbered_folder(n), &m)
    };
    let spdx = licensed(1, "cc-by-4.0");
    let custom = licensed(2, "Free for research; see LICENSE.txt");
    let jobs = deposit(&store, &target, &[spdx, custom], fast_config()).await;
    let mut rights = Vec::new();
    for job in &jobs {
        let record = Api::new(&sandbox).deposited_record(job).await;
        rights.push(record["metadata"]["rights"].clone());
    }
    assert!(rights.contains(&json!([{"id": "cc-by-4.0"}])), "{rights:?}");
    assert!(
        rights.contains(&json!([{"title": {"en": "Free for research; see LICENSE.txt"}}])),
        "{rights:?}"
    );

    // A license id outside the vocabulary is refused at publish, by field, as InvenioRDM does.
    let api = Api::new(&sandbox);
    let mut body = body_sent(&store, &spdx.1);
    body["metadata"]["rights"] = json!([{"id": "free-for-research"}]);
    let errors = api.draft_errors(body).await;
    assert!(errors.contains("metadata.rights.0.id"), "{errors}");
}

/// A dataset whose files are restricted or embargoed is deposited so: its record public,
/// its files restricted (until the embargo's date), as the landing page then says.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restricted_and_embargoed_files_are_deposited_restricted_with_a_public_record() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let with_access = |n: usize, access: FileAccess| {
        let m = Metadata {
            access,
            ..metadata(&format!("Access {n}"))
        };
        add(&store, &lab.numbered_folder(n), &m)
    };
    let open = with_access(1, FileAccess::Open);
    let restricted = with_access(2, FileAccess::Restricted);
    let until = "2099-06-30".to_string();
    let embargoed = with_access(3, FileAccess::Embargoed { until });
    let jobs = deposit(
        &store,
        &target,
        &[open, restricted, embargoed],
        fast_config(),
    )
    .await;
    let api = Api::new(&sandbox);
    let (mut access, mut pages) = (Vec::new(), Vec::new());
    for job in &jobs {
        let record = api.deposited_record(job).await;
        access.push(record["access"].clone());
        pages.push(record["links"]["self_html"].as_str().unwrap().to_string());
    }
    assert_eq!(
        access,
        [
            json!({"record": "public", "files": "public"}),
            json!({"record": "public", "files": "restricted"}),
            json!({"record": "public", "files": "restricted",
                   "embargo": {"active": true, "until": "2099-06-30"}}),
        ]
    );
    let client = reqwest::Client::new();
    let mut said = Vec::new();
    for page in &pages {
        let html = client.get(page).header("accept", "text/html").send().await;
        let html = html.unwrap().text().await.unwrap();
        let files = html.split("<dt>Files</dt><dd>").nth(1).unwrap_or(&html);
        said.push(files.split("</dd>").next().unwrap().to_string());
    }
    assert_eq!(
        said,
        [
            "open",
            "restricted",
            "restricted, embargoed until 2099-06-30"
        ]
    );
}

/// InvenioRDM refuses an embargo that has already ended: the deposit is refused once,
/// naming the field, before anything is made there (no draft holds the files).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_embargo_whose_date_has_passed_is_refused_once_naming_the_field() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let ended = Metadata {
        access: FileAccess::Embargoed {
            until: "2020-01-31".into(),
        },
        ..metadata("Ended embargo")
    };
    let ds = add(&store, &lab.numbered_folder(4), &ended);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("access.embargo.until: the embargo ends on 2020-01-31, which has come")
            && error.contains("give a later day"),
        "{error}"
    );
    let command = format!(
        "lodge add {} --embargo-until YYYY-MM-DD",
        lab.numbered_folder(4).display()
    );
    assert!(error.contains(&command), "the folder is named: {error}");
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 0),
        "nothing made: no draft, no record"
    );
}

/// InvenioRDM checks related identifiers against its relation types vocabulary: one that
/// is not in it (here sent past Lodge's own check, which the command line and the window
/// make first) is refused once, naming the field, and nothing is published.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_relation_type_invenio_does_not_know_is_refused_once_naming_the_field() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let misspelt = Metadata {
        related: vec![lodge::content::RelatedWork {
            relation: "IsSuplementTo".into(),
            identifier: "10.1234/paper".into(),
        }],
        ..metadata("Misspelt relation")
    };
    let ds = add(&store, &lab.numbered_folder(7), &misspelt);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("metadata.related_identifiers.0.relation_type")
            && error.contains("Invalid relation type 'issuplementto'"),
        "{error}"
    );
    assert_eq!(
        sandbox.invenio_counts(),
        (0, 1),
        "nothing published; one draft"
    );
    // The draft left at the site, with its files, is named, and what becomes of it.
    assert!(
        error.contains("draft: draft 0000")
            && error.contains("stays at InvenioRDM with the files")
            && error.contains("discard"),
        "{error}"
    );
}

/// InvenioRDM takes an award it does not list only with both its number and its title: an
/// award with its number alone and no funder id to find it by is refused before a draft is
/// made, naming the funding and what to add (not retried); the same funder with both is
/// deposited with its award. Sent past Lodge's
/// check, the emulation refuses such an award as InvenioRDM does.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_award_without_its_title_is_refused_before_a_draft_is_made() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let funded = |n: usize, funding: &str| {
        let m = Metadata {
            funding: vec![lodge::content::Funding::parse(funding).unwrap()],
            ..metadata(&format!("Funded {n}"))
        };
        add(&store, &lab.numbered_folder(n), &m)
    };
    let partial = funded(1, "NSF; award=2045678");
    let jobs = deposit(&store, &target, &[partial], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains(
            "funding[0]: 'NSF; award=2045678' gives the award a number only, and InvenioRDM \
             takes an award it does not list only with its number and its title: add its \
             title ('NSF; award=2045678; award-title=TITLE'), or the funder's ROR \
             or Crossref Funder ID (funder-id=...) for Lodge to find award 2045678 in \
             InvenioRDM's list of awards, or give the funder alone ('NSF')"
        ),
        "{error}"
    );
    assert_eq!(sandbox.invenio_counts(), (0, 0), "no draft made");

    let whole = funded(2, "NSF; award=2045678; award-title=Soil cores");
    let jobs = deposit(&store, &target, &[whole], fast_config()).await;
    let api = Api::new(&sandbox);
    let record = api.deposited_record(&jobs[0]).await;
    assert_eq!(
        record["metadata"]["funding"],
        json!([{"funder": {"name": "NSF"},
                "award": {"number": "2045678", "title": {"en": "Soil cores"}}}])
    );

    let mut body = body_sent(&store, &whole.1);
    body["metadata"]["funding"][0]["award"] = json!({"number": "2045678"});
    let errors = api.draft_errors(body).await;
    assert!(errors.contains("metadata.funding.0.award"), "{errors}");
}

/// A funder given with its ROR or Crossref Funder ID is linked to the site's funders
/// vocabulary, and its award (by number) to the awards vocabulary, so the repository knows
/// the record as the grant's output; what the site does not list goes by name, and as a
/// custom award with its number and title.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn funding_with_a_funder_id_is_linked_to_the_sites_funders_and_awards() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let m = Metadata {
        funding: [
            // Listed, and its award too, by number alone.
            "European Commission; funder-id=https://ror.org/00K4N6C32; award=101017452",
            // Listed by its Crossref Funder ID; its award by number (the title as given
            // is the vocabulary's to keep).
            "Wellcome Trust; funder-id=10.13039/100010269; award=221400; award-title=Minds",
            // Listed, the award not: a custom award of a listed funder.
            "NSF; funder-id=021nxhr62; award=2045678; award-title=Soil cores",
            // Not listed (a ROR the site lacks): by name.
            "Brown University; funder-id=05gq02987",
        ]
        .iter()
        .map(|f| lodge::content::Funding::parse(f).unwrap())
        .collect(),
        ..metadata("Linked funding")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    let record = Api::new(&sandbox).deposited_record(&jobs[0]).await;
    assert_eq!(
        record["metadata"]["funding"],
        json!([
            {"funder": {"id": "00k4n6c32", "name": "European Commission"},
             "award": {"id": "00k4n6c32::101017452", "number": "101017452",
                       "title": {"en": "OpenAIRE-Nexus Scholarly Communication Services for EOSC users"}}},
            {"funder": {"id": "029chgv08", "name": "Wellcome Trust"},
             "award": {"id": "10.35802/221400", "number": "221400",
                       "title": {"en": "COVID-Minds: Mental Health during Covid-19"}}},
            {"funder": {"id": "021nxhr62", "name": "National Science Foundation"},
             "award": {"number": "2045678", "title": {"en": "Soil cores"}}},
            {"funder": {"name": "Brown University"}},
        ])
    );

    // Sent past Lodge's lookups, an id the vocabularies lack is refused as InvenioRDM does.
    let api = Api::new(&sandbox);
    let mut body = body_sent(&store, &ds.1);
    body["metadata"]["funding"] = json!([
        {"funder": {"id": "05gq02987"}},
        {"funder": {"id": "00k4n6c32"}, "award": {"id": "00k4n6c32::1"}},
    ]);
    let errors = api.draft_errors(body).await;
    assert!(
        errors.contains("metadata.funding.0.funder") && errors.contains("metadata.funding.1.award"),
        "{errors}"
    );
    assert!(!errors.contains("metadata.funding.1.funder"), "{errors}");
}

/// An award given by its number alone that the site's list of awards lacks (or whose funder
/// the site's list of funders lacks) can be sent neither way: the deposit is refused once,
/// before a draft is made, saying which and what to add.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_award_number_the_site_does_not_list_is_refused_before_a_draft_is_made() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let m = Metadata {
        funding: [
            "NSF; funder-id=021nxhr62; award=999",
            "Brown University; funder-id=05gq02987; award=12",
        ]
        .iter()
        .map(|f| lodge::content::Funding::parse(f).unwrap())
        .collect(),
        ..metadata("Unlisted award")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "not retried");
    let error = jobs[0].last_error.clone().unwrap();
    assert_all(
        &error,
        &[
            "funding[0]: 'NSF; funder-id=https://ror.org/021nxhr62; award=999' gives the award \
             a number only, and InvenioRDM's list of awards has no award 999 of this funder: \
             check the number, or add its title ('NSF; \
             funder-id=https://ror.org/021nxhr62; award=999; award-title=TITLE'), or give the \
             funder alone ('NSF; funder-id=https://ror.org/021nxhr62')",
            "funding[1]: 'Brown University; funder-id=https://ror.org/05gq02987; award=12' gives \
             the award a number only, and InvenioRDM's list of funders has no \
             https://ror.org/05gq02987, so the award cannot be found in its list of awards: add \
             its title",
        ],
    );
    assert_eq!(sandbox.invenio_counts(), (0, 0), "no draft made");
}

/// InvenioRDM takes locations as GeoJSON features: Lodge's points and boxes are deposited
/// as such; a feature with nothing in it, or a position out of range, sent past Lodge's own
/// check, is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_location_invenio_cannot_read_is_refused_naming_the_field() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let m = Metadata {
        locations: vec![
            lodge::content::Location::parse("Alps; lat=46.5; lon=9.8; box=5.9,45.8,10.5,47.8")
                .unwrap(),
        ],
        ..metadata("Located")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    let api = Api::new(&sandbox);
    let record = api.deposited_record(&jobs[0]).await;
    let features = record["metadata"]["locations"]["features"].clone();
    assert_eq!(features.as_array().map(Vec::len), Some(2), "{features}");
    assert_eq!(features[0]["geometry"]["type"], "Point");
    assert_eq!(features[1]["geometry"]["type"], "Polygon");
    assert_eq!(features[1]["place"], "Alps");

    let mut body = body_sent(&store, &ds.1);
    body["metadata"]["locations"] = json!({"features": [
        {"description": "fine"},
        {},
        {"geometry": {"type": "Point", "coordinates": [47.27, 98.65]}},
        {"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}},
    ]});
    let errors = api.draft_errors(body).await;
    assert!(
        !errors.contains("metadata.locations.features.0"),
        "{errors}"
    );
    for field in [
        "metadata.locations.features.1",
        "metadata.locations.features.2.geometry",
        "metadata.locations.features.3.geometry",
    ] {
        assert!(errors.contains(field), "{field}: {errors}");
    }
}

/// A record published by an attempt that stopped before asking its communities (the
/// publish happened, its answer was lost) is asked when the next attempt reconciles:
/// `reconcile` finds the record and makes the requests, and again makes none twice. A
/// target that leaves drafts asks nothing: a person picks the communities on publishing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reconciling_a_published_record_asks_its_communities_once() {
    use reqwest::Method;
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let m = Metadata {
        communities: vec!["soil-science".into()],
        ..metadata("Asked")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &invenio_drafts(&sandbox), &[ds], fast_config()).await;
    let id = jobs[0].identifier.clone().unwrap();
    let api = Api::new(&sandbox);
    async fn asked(api: &Api<'_>, id: &str) -> u64 {
        let (_, requests) = api
            .json(Method::GET, &format!("/api/records/{id}/requests"), None)
            .await;
        requests["hits"]["total"].as_u64().unwrap_or_default()
    }
    assert_eq!(asked(&api, &id).await, 0, "a draft asks nothing");
    // A draft is not a record a community can be asked to include.
    let body = json!({"communities": [{"id": "soil-science"}]});
    let (status, _) = api
        .json(
            Method::POST,
            &format!("/api/records/{id}/communities"),
            Some(body),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = api
        .json(
            Method::POST,
            &format!("/api/records/{id}/draft/actions/publish"),
            None,
        )
        .await;
    assert_eq!(status, 202);

    let document = store.document(&ds.1).unwrap().unwrap();
    let target = invenio(&sandbox);
    for _ in 0..2 {
        let found = target.reconcile(&ds.1, &document).await.unwrap();
        assert_eq!(found.map(|r| r.identifier), Some(id.clone()));
        assert_eq!(asked(&api, &id).await, 1, "asked once");
    }
    // The emulation names a community it does not have in its answer.
    let body = json!({"communities": [{"id": "no-such-thing"}]});
    let (status, answer) = api
        .json(
            Method::POST,
            &format!("/api/records/{id}/communities"),
            Some(body),
        )
        .await;
    assert_eq!(status, 400, "none asked");
    assert_eq!(answer["errors"][0]["message"], "Community not found.");
}

/// Methods go to InvenioRDM as an additional description of type methods; one of a type
/// outside its description types, or with no text, sent past Lodge, is refused naming the
/// field.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn methods_are_an_additional_description_and_a_type_invenio_does_not_know_is_refused() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let m = Metadata {
        methods: Some("Sieved at 2 mm".into()),
        description: Some("Cores from the plot.\n\nDepth < 2 m & dry.".into()),
        ..metadata("Sieved")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &invenio(&sandbox), &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);

    let api = Api::new(&sandbox);
    let mut body = body_sent(&store, &ds.1);
    // InvenioRDM renders both as HTML: plain text goes as its paragraphs, escaped.
    assert_eq!(
        body["metadata"]["additional_descriptions"],
        json!([{"description": "<p>Sieved at 2 mm</p>", "type": {"id": "methods"}}])
    );
    assert_eq!(
        body["metadata"]["description"],
        "<p>Cores from the plot.</p><p>Depth &lt; 2 m &amp; dry.</p>"
    );
    body["metadata"]["additional_descriptions"] = json!([
        {"description": "x", "type": {"id": "method"}},
        {"description": " ", "type": {"id": "other"}},
    ]);
    let errors = api.draft_errors(body).await;
    assert!(
        errors.contains("metadata.additional_descriptions.0.type")
            && errors.contains("metadata.additional_descriptions.1.description"),
        "{errors}"
    );
}

/// InvenioRDM checks a contributor's role against its roles vocabulary (DataCite's
/// contributor types, in lower case): Lodge's are deposited as given; one outside it, sent
/// past Lodge's own check, is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_contributor_role_invenio_does_not_know_is_refused_naming_the_field() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let m = Metadata {
        contributors: vec![
            lodge::content::Contributor::parse("Doe, Jane; role=DataCurator").unwrap(),
        ],
        ..metadata("Curated")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);

    let api = Api::new(&sandbox);
    let mut body = body_sent(&store, &ds.1);
    assert_eq!(
        body["metadata"]["contributors"][0]["role"],
        json!({"id": "datacurator"})
    );
    body["metadata"]["contributors"][0]["role"] = json!({"id": "curator"});
    let errors = api.draft_errors(body).await;
    assert!(errors.contains("metadata.contributors.0.role"), "{errors}");
}

/// InvenioRDM checks a date's type against its date types vocabulary and reads the date as
/// EDTF: Lodge's are deposited as given; a type outside it, or a date that is none, sent past
/// Lodge's own check, is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_date_invenio_cannot_read_is_refused_naming_the_field() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = invenio(&sandbox);
    let store = lab.store("lodge.db");
    let m = Metadata {
        dates: vec![lodge::content::DatasetDate::parse("Collected 2025-03/2025-06").unwrap()],
        ..metadata("Dated")
    };
    let ds = add(&store, &lab.numbered_folder(1), &m);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);

    let api = Api::new(&sandbox);
    let body = body_sent(&store, &ds.1);
    assert_eq!(
        body["metadata"]["dates"],
        json!([{"date": "2025-03/2025-06", "type": {"id": "collected"}}])
    );
    let mut harvested = body.clone();
    harvested["metadata"]["dates"][0]["type"] = json!({"id": "harvested"});
    let errors = api.draft_errors(harvested).await;
    assert!(errors.contains("metadata.dates.0.type"), "{errors}");
    let mut spring = body;
    spring["metadata"]["dates"][0]["date"] = json!("spring 2025");
    let errors = api.draft_errors(spring).await;
    assert!(errors.contains("metadata.dates.0.date"), "{errors}");
}

/// A published record's landing page links each file by its key as one percent-encoded
/// path segment (a key may hold `/`, `#`, `?` and spaces), and a browser following the link
/// of an open record's file gets it without a token, as from InvenioRDM. A draft, a
/// restricted file and every write still need the token, and a wrong one is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_landing_pages_file_links_open_any_key_and_an_open_records_files_need_no_token() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let odd = "sub dir/file #1?.csv";
    let files: [(&str, &[u8]); 2] = [(odd, b"id,odd\n1,2\n"), ("plain.txt", b"plain")];
    let open = add(&store, &lab.folder("odd", &files), &metadata("Odd names"));
    let restricted = Metadata {
        access: FileAccess::Restricted,
        ..metadata("Restricted")
    };
    let restricted = add(&store, &lab.folder("closed", &files), &restricted);
    let jobs = deposit(
        &store,
        &invenio(&sandbox),
        &[open, restricted],
        fast_config(),
    )
    .await;
    let api = Api::new(&sandbox);
    let open_id = api.deposited_record(&jobs[0]).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let closed_id = api.deposited_record(&jobs[1]).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let base = sandbox.base_url();
    let browser = reqwest::Client::new();
    let page = browser
        .get(format!("{base}/records/{open_id}"))
        .header("Accept", "text/html")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let link = format!("/api/records/{open_id}/files/sub%20dir%2Ffile%20%231%3F.csv/content");
    assert!(
        page.contains(&format!("<a href=\"{link}\">{odd}</a>")),
        "{page}"
    );

    let status_of = |path: String, token: Option<String>| {
        let mut rb = browser.get(format!("{base}{path}"));
        if let Some(token) = token {
            rb = rb.bearer_auth(token);
        }
        async move { rb.send().await.unwrap() }
    };
    let followed = status_of(link.clone(), None).await;
    assert_eq!(followed.status(), 200, "the link, as a browser follows it");
    assert_eq!(followed.bytes().await.unwrap().as_ref(), files[0].1);
    let record = status_of(format!("/api/records/{open_id}"), None).await;
    assert_eq!(record.status(), 200, "an open record's JSON");
    let wrong = status_of(link, Some("wrong".into())).await;
    assert_eq!(wrong.status(), 401, "a wrong token is refused all the same");
    let closed = format!("/api/records/{closed_id}/files/plain.txt/content");
    assert_eq!(status_of(closed.clone(), None).await.status(), 401);
    let token = sandbox.invenio_account().token;
    assert_eq!(status_of(closed, Some(token)).await.status(), 200);

    let later = add(&store, &lab.numbered_folder(7), &metadata("Draft"));
    let jobs = deposit(&store, &invenio_drafts(&sandbox), &[later], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let draft = jobs[0].identifier.clone().unwrap();
    for path in [
        format!("/api/records/{draft}"),
        format!("/api/records/{draft}/draft"),
        format!("/api/records/{draft}/draft/files/data.csv/content"),
    ] {
        assert_eq!(status_of(path.clone(), None).await.status(), 401, "{path}");
    }
    let write = browser
        .post(format!("{base}/api/records/{open_id}/versions"))
        .send()
        .await
        .unwrap();
    assert_eq!(write.status(), 401, "a write needs the token");
}

/// On a sandbox started with `--token`, a published record's landing page is public, as on
/// an InvenioRDM site (its findable DOI resolves there, and its JSON is public already);
/// the sandbox's own records stay its token's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_published_records_landing_page_needs_no_sandbox_token() {
    let lab = Lab::new();
    let sandbox = lab.sandbox_with_token("sbx", "s3cret").await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Public page"));
    let jobs = deposit(&store, &invenio(&sandbox), &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let id = jobs[0].identifier.clone().unwrap();
    let base = sandbox.base_url();
    let get = |path: String| {
        let rb = reqwest::Client::new()
            .get(format!("{base}{path}"))
            .header("Accept", "text/html");
        async move { rb.send().await.unwrap().status() }
    };
    assert_eq!(get(format!("/records/{id}")).await, 200, "the landing page");
    assert_eq!(
        get(format!("/records/{}", ds.1.to_hex())).await,
        401,
        "the sandbox's own"
    );
    assert_eq!(get("/".to_string()).await, 401, "the sandbox's page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_token_pauses_the_invenio_target() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = open_target(&sandbox.invenio_target_url(), Some("wrong".into())).unwrap();
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(6), &metadata("Locked out"));
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Queued);
    assert_eq!(jobs[0].attempts, 1);
    assert!(
        store
            .target_paused(target.scope_id())
            .unwrap()
            .unwrap()
            .contains("401")
    );
    assert_eq!(sandbox.invenio_counts(), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_invenio_site_that_redirects_pauses_the_target_naming_where_it_points() {
    let lab = Lab::new();
    // A site that moved (or an http:// URL to an https:// site) answers every request so.
    let moved = FakeServer::start(|_, path| Answer {
        status: 301,
        headers: vec![("location", format!("https://rdm.example.org{path}"))],
        body: String::new(),
    })
    .await;
    let target = open_target(&format!("invenio+{}", moved.url()), Some("t".into())).unwrap();
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(7), &metadata("Moved"));
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Queued, "the job waits, not lost");
    let reason = store.target_paused(target.scope_id()).unwrap().unwrap();
    assert!(
        reason.contains("redirects to https://rdm.example.org/api/user/records"),
        "the pause names where the site points: {reason}"
    );
    assert!(!is_paused_for_credentials(&reason), "{reason}");
    assert_eq!(moved.requests(), 1, "one request, then the target stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_rate_limit_headers_and_429_says_when_to_come_back() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    sandbox.set_invenio_account(InvenioAccount {
        requests_per_minute: 2,
        ..InvenioAccount::default()
    });
    let api = Api::new(&sandbox);
    let mut last = None;
    for _ in 0..3 {
        last = Some(
            api.call(reqwest::Method::GET, "/api/user/records", None)
                .await,
        );
    }
    let resp = last.unwrap();
    assert_eq!(resp.status(), 429);
    for h in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "retry-after",
    ] {
        assert!(resp.headers().contains_key(h), "missing {h}");
    }
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "0");
    let failure =
        lodge::targets::Failure::from_status(429, resp.headers()["retry-after"].to_str().ok(), "");
    assert!(failure.retry_after().unwrap() <= std::time::Duration::from_secs(60));
}

// ---- contract: the documented examples ----------------------------------------------------

fn assert_contains(actual: &Value, documented: &Value, at: &str) {
    match documented {
        Value::Object(fields) => {
            for (k, v) in fields {
                assert_contains(&actual[k], v, &format!("{at}.{k}"));
            }
        }
        Value::String(s) if s.contains('{') => {
            assert!(!actual.is_null(), "{at} missing (documented: {s})");
        }
        Value::Array(items) => {
            let got = actual
                .as_array()
                .unwrap_or_else(|| panic!("{at} is not a list"));
            assert_eq!(got.len(), items.len(), "{at}");
            for (i, item) in items.iter().enumerate() {
                assert_contains(&got[i], item, &format!("{at}[{i}]"));
            }
        }
        other => assert_eq!(actual, other, "{at}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emulation_follows_the_documented_draft_file_and_publish_steps() {
    use reqwest::Method;
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let api = Api::new(&sandbox);
    let (status, draft) = api
        .json(
            Method::POST,
            "/api/records",
            Some(example("create-draft-request.json")),
        )
        .await;
    assert_eq!(status, 201);
    assert_contains(&draft, &example("create-draft-response-201.json"), "draft");
    let id = draft["id"].as_str().unwrap();

    let (status, files) = api
        .json(
            Method::POST,
            &format!("/api/records/{id}/draft/files"),
            Some(example("files-init-request.json")),
        )
        .await;
    assert_eq!(status, 201);
    assert_contains(&files, &example("files-init-response-201.json"), "files");

    for key in ["figure.png", "article.pdf"] {
        let put = api
            .call(
                Method::PUT,
                &format!("/api/records/{id}/draft/files/{key}/content"),
                Some(b"bytes".to_vec()),
            )
            .await;
        assert_eq!(put.status(), 200);
        let (status, committed) = api
            .json(
                Method::POST,
                &format!("/api/records/{id}/draft/files/{key}/commit"),
                None,
            )
            .await;
        assert_eq!(status, 200);
        if key == "figure.png" {
            assert_contains(
                &committed,
                &example("file-commit-response-200.json"),
                "commit",
            );
            assert_eq!(
                committed["checksum"],
                "md5:4b3a6218bb3e3a7303e8a171a60fcf92"
            );
        }
    }
    let (status, published) = api
        .json(
            Method::POST,
            &format!("/api/records/{id}/draft/actions/publish"),
            None,
        )
        .await;
    assert_eq!(status, 202);
    assert_contains(
        &published,
        &example("publish-response-202.json"),
        "published",
    );

    let mut untitled = example("create-draft-request.json");
    untitled["metadata"]["title"] = Value::Null;
    let other = api.draft_with_file(untitled, "a.txt", b"a").await;
    let (status, error) = api
        .json(
            Method::POST,
            &format!("/api/records/{other}/draft/actions/publish"),
            None,
        )
        .await;
    assert_eq!(status, 400);
    assert_contains(&error, &example("validation-error-400.json"), "error");
}

#[test]
fn lodge_draft_bodies_have_every_field_of_the_documented_request() {
    let documented = example("create-draft-request.json");
    let doc = lodge::content::ContentDocument::new(
        vec![lodge::content::ManifestEntry {
            path: "a.csv".into(),
            size: 1,
            sha256: lodge::content::Sha256Hex::of(b"a"),
        }],
        &metadata("Fields"),
    );
    let ours = draft_body(&doc.key(), &doc);
    for section in ["access", "files", "metadata"] {
        for field in documented[section].as_object().unwrap().keys() {
            assert!(
                !ours[section][field].is_null(),
                "Lodge's draft lacks {section}.{field}"
            );
        }
    }
    assert_eq!(
        ours["metadata"]["creators"][0]["person_or_org"]["type"],
        "personal"
    );
    assert_eq!(ours["metadata"]["resource_type"]["id"], "dataset");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn zenodo_refuses_more_files_than_a_record_takes_before_making_a_draft() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let zenodo = open_target(
        &format!("zenodo+http://{}", sandbox.addr()),
        Some(sandbox.invenio_account().token),
    )
    .expect("zenodo target");
    let names: Vec<String> = (0..=100).map(|i| format!("plot-{i:03}.csv")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), n.as_bytes())).collect();
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.folder("plots", &files), &metadata("Plots"));

    // A dry run says so already.
    let mut dry = lodge(&lab.path("lodge.db"));
    dry.args([
        "deposit",
        "--dry-run",
        "--all",
        "--target",
        zenodo.scope_id(),
    ])
    .args(["--token", &sandbox.invenio_account().token]);
    let out = run(dry).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &["refused  plots: rejected: files: Zenodo takes at most 100 files in a record"],
    );

    let jobs = deposit(&store, &zenodo, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected, "{:?}", jobs[0]);
    assert_eq!(jobs[0].attempts, 1, "terminal: never retried");
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("Zenodo takes at most 100 files in a record and this dataset has 101"),
        "{error}"
    );
    assert_eq!(sandbox.invenio_counts(), (0, 0), "no draft was made");

    // An InvenioRDM site sets its own limits: the same dataset is published there.
    let jobs = deposit(&store, &invenio(&sandbox), &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(sandbox.invenio_uploads(), 101);
}

/// A site's label names its host and, where one is given, its port: two sites on one host
/// (a test instance beside the real one) are told apart wherever targets are named.
#[test]
fn a_sites_label_names_its_port_where_one_is_given() {
    let label = |url: &str| lodge::targets::open_target(url, None).unwrap().label();
    assert_eq!(
        label("invenio+http://127.0.0.1:8080"),
        "InvenioRDM at 127.0.0.1:8080"
    );
    assert_eq!(
        label("invenio+http://127.0.0.1:8080?state=draft"),
        "InvenioRDM at 127.0.0.1:8080, drafts"
    );
    assert_eq!(label("zenodo+https://zenodo.org"), "Zenodo at zenodo.org");
}

/// A deposit to a site given by its URL and `--token` that fails: the retry it suggests
/// carries `--token TOKEN` too (without it the site answers 401 and the target pauses),
/// and run with the token, that retry lands each once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_retry_suggested_after_a_failed_deposit_with_a_token_asks_for_the_token() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                fail_before_commit: 1.0,
                ..FaultConfig::default()
            },
        )
        .await;
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(1), &metadata("First"));
    add(&store, &lab.numbered_folder(2), &metadata("Second"));
    let token = sandbox.invenio_account().token.clone();
    let mut deposit = lodge_in(&lab);
    deposit
        .args(["deposit", "--all", "--max-attempts", "1", "--target"])
        .arg(sandbox.invenio_target_url())
        .args(["--token", &token]);
    let out = run(deposit).await;
    assert!(!out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "retry with `lodge retry 1 --token TOKEN`",
            "to retry the 2 failed with the same keys: `lodge retry --all-failed --token TOKEN`",
        ],
    );

    sandbox.set_faults(FaultConfig::default());
    let mut retry = lodge_in(&lab);
    retry.args(["retry", "--all-failed", "--token", &token]);
    let out = run(retry).await;
    assert!(out.status.success(), "{}", text(&out));
    let landed = (store.history().unwrap().iter())
        .filter(|r| r.state == "deposited")
        .count();
    assert_eq!(landed, 2);
}
