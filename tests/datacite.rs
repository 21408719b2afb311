//! The DataCite target against the sandbox's DataCite emulation over real HTTP: DOIs derived
//! from content keys, "already taken" read back and decided by content key, validation
//! errors terminal, wrong credentials pausing the target; and contract tests that hold the
//! emulation and the client to DataCite's documented request and response examples.

mod support;

use std::sync::Arc;

use lodge::content::Metadata;
use lodge::engine::repair::{Repair, repair_deposit};
use lodge::sandbox::{FaultConfig, RunningSandbox};
use lodge::store::{EventKind, JobState};
use lodge::targets::datacite::{doi, mapping};
use lodge::targets::{Failure, FailureClass, ReadBack, Target, open_target};
use serde_json::{Value, json};
use support::*;

fn datacite(sandbox: &RunningSandbox, extra: &str) -> Arc<dyn Target> {
    let url = format!("{}{extra}", sandbox.datacite_target_url());
    open_target(&url, Some(sandbox.datacite_account().password)).expect("datacite target")
}

fn example(name: &str) -> Value {
    let path = format!(
        "{}/tests/contract/datacite/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deposit_mints_the_doi_derived_from_the_key_and_a_replay_sends_nothing() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(&sandbox, "");
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Soil"));

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    let expected = doi::doi_for("10.80000", &ds.1);
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    assert_eq!(jobs[0].identifier.as_deref(), Some(expected.as_str()));
    let body: Value = get_doi(&sandbox, &expected).await.json().await.unwrap();
    assert_eq!(body["data"]["attributes"]["state"], "draft");
    assert_eq!(
        mapping::key_of(&body["data"]["attributes"]),
        Some(ds.1.to_hex())
    );

    let requests = sandbox.stats().requests;
    let again = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(again[0].state, JobState::Existing);
    assert_eq!(again[0].identifier, jobs[0].identifier);
    assert_eq!(sandbox.stats().requests, requests, "a replay sends nothing");
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_changed_dataset_gets_a_doi_of_its_own_related_as_a_new_version_of_the_first() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(&sandbox, "");
    let store = lab.store("lodge.db");
    let folder = lab.numbered_folder(2);
    let first = add(&store, &folder, &metadata("Soil"));
    let jobs = deposit(&store, &target, &[first], fast_config()).await;
    let first_doi = jobs[0].identifier.clone().unwrap();
    let body: Value = get_doi(&sandbox, &first_doi).await.json().await.unwrap();
    assert!(
        body["data"]["attributes"]["relatedIdentifiers"]
            .as_array()
            .is_none_or(|r| r.is_empty()),
        "a first version: {body}"
    );

    std::fs::write(folder.join("data.csv"), "id,value\n2,5\n").unwrap();
    let changed = add(&store, &folder, &metadata("Soil"));
    let jobs = deposit(&store, &target, &[changed], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited, "{:?}", jobs[0]);
    let second_doi = jobs[0].identifier.clone().unwrap();
    assert_eq!(
        second_doi,
        doi::doi_for("10.80000", &changed.1),
        "its key's DOI"
    );
    assert_eq!(
        logged(&store, jobs[0].id, EventKind::Created),
        format!("created {second_doi}, the next version of {first_doi}")
    );
    let body: Value = get_doi(&sandbox, &second_doi).await.json().await.unwrap();
    assert_eq!(
        body["data"]["attributes"]["relatedIdentifiers"],
        json!([{
            "relatedIdentifier": first_doi,
            "relatedIdentifierType": "DOI",
            "relationType": "IsNewVersionOf",
        }]),
        "{body}"
    );
    assert_eq!(sandbox.doi_count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_machine_minting_the_same_dataset_gets_the_same_doi_not_a_second_one() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(&sandbox, "");
    let folder = lab.numbered_folder(2);
    let mut identifiers = Vec::new();
    for machine in ["a.db", "b.db"] {
        let store = lab.store(machine);
        let ds = add(&store, &folder, &metadata("Shared"));
        let jobs = deposit(&store, &target, &[ds], fast_config()).await;
        assert!(jobs[0].state.is_landed(), "{:?}", jobs[0]);
        identifiers.push(jobs[0].identifier.clone().unwrap());
        if machine == "b.db" {
            assert_eq!(
                jobs[0].state,
                JobState::Existing,
                "DataCite said: already taken"
            );
        }
    }
    assert_eq!(identifiers[0], identifiers[1]);
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_doi_taken_by_other_content_is_a_terminal_conflict() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(&sandbox, "");
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(3), &metadata("Mine"));
    // Someone minted our DOI by hand, for something else.
    let mut request = example("create-request.json");
    request["data"]["attributes"]["doi"] = doi::doi_for("10.80000", &ds.1).into();
    let account = sandbox.datacite_account();
    let resp = reqwest::Client::new()
        .post(format!("{}/dois", sandbox.base_url()))
        .basic_auth(&account.repository, Some(&account.password))
        .header("content-type", "application/vnd.api+json")
        .body(request.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);

    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected);
    assert_eq!(jobs[0].attempts, 1);
    let error = jobs[0].last_error.clone().unwrap();
    assert!(
        error.contains("already exists for other content"),
        "{error}"
    );
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn publishing_needs_complete_metadata_and_datacites_field_messages_are_kept() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(
        &sandbox,
        "&state=publish&url=https://example.org/data/{key}",
    );
    let store = lab.store("lodge.db");
    let no_publisher = Metadata {
        publisher: String::new(),
        ..metadata("Unpublishable")
    };
    let ds = add(&store, &lab.numbered_folder(4), &no_publisher);
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Rejected);
    assert_eq!(jobs[0].attempts, 1, "validation errors are never retried");
    assert_eq!(jobs[0].last_status, Some(422));
    assert!(jobs[0].last_error.as_deref().unwrap().contains("publisher"));

    let ok = add(&store, &lab.numbered_folder(5), &metadata("Published"));
    let jobs = deposit(&store, &target, &[ok], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Deposited);
    let doi = jobs[0].identifier.clone().unwrap();
    let body: Value = get_doi(&sandbox, &doi).await.json().await.unwrap();
    assert_eq!(body["data"]["attributes"]["state"], "findable");
    assert_eq!(
        body["data"]["attributes"]["url"],
        format!("https://example.org/data/{}", ok.1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn response_lost_after_the_doi_was_minted_reconciles_to_the_same_doi() {
    let lab = Lab::new();
    let sandbox = lab
        .sandbox(
            "sbx",
            FaultConfig {
                drop_after_commit: 1.0,
                ..FaultConfig::default()
            },
        )
        .await;
    let target = datacite(&sandbox, "");
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(6), &metadata("Dropped"));
    // Every POST commits and then loses its response; the GET of reconciliation does not.
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Existing, "{:?}", jobs[0]);
    assert_eq!(
        jobs[0].identifier.as_deref(),
        Some(doi::doi_for("10.80000", &ds.1).as_str())
    );
    assert_eq!(sandbox.doi_count(), 1);
    let events = store.events_for_job(jobs[0].id).unwrap();
    assert!(events.iter().any(|e| e.kind == EventKind::Reconciled));
}

const PUBLISH: &str = "&state=publish&url=https://example.org/{key}";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_doi_deposited_to_a_publishing_target_is_published_not_minted_again() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let (drafts, publisher) = (datacite(&sandbox, ""), datacite(&sandbox, PUBLISH));
    assert_ne!(
        drafts.scope_id(),
        publisher.scope_id(),
        "publishing is a deposit of its own, not a replay of the draft"
    );
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(1), &metadata("Drafted first"));
    let doi = doi::doi_for("10.80000", &ds.1);

    let drafted = deposit(&store, &drafts, &[ds], fast_config()).await;
    assert_eq!(drafted[0].state, JobState::Deposited, "{:?}", drafted[0]);
    assert_eq!(
        get_doi_json(&sandbox, &doi).await["data"]["attributes"]["state"],
        "draft"
    );

    let published = deposit(&store, &publisher, &[ds], fast_config()).await;
    assert_eq!(published[0].state, JobState::Existing, "{:?}", published[0]);
    assert_eq!(published[0].identifier.as_deref(), Some(doi.as_str()));
    let attributes = get_doi_json(&sandbox, &doi).await["data"]["attributes"].clone();
    assert_eq!(attributes["state"], "findable");
    assert_eq!(
        attributes["url"],
        format!("https://example.org/{}", ds.1.to_hex())
    );
    assert_eq!(sandbox.doi_count(), 1, "one DOI, published");
    let said = logged(&store, published[0].id, EventKind::Existing);
    assert!(
        said.contains("it was a draft DOI and is findable now"),
        "{said}"
    );

    // Each target's deposit is recorded: both replay, sending nothing.
    let requests = sandbox.stats().requests;
    for target in [&publisher, &drafts] {
        let again = deposit(&store, target, &[ds], fast_config()).await;
        assert_eq!(again[0].identifier.as_deref(), Some(doi.as_str()));
    }
    assert_eq!(sandbox.stats().requests, requests, "replays send nothing");

    // A target that only registers leaves a findable DOI findable.
    let registrar = datacite(&sandbox, "&state=register&url=https://example.org/{key}");
    let registered = deposit(&store, &registrar, &[ds], fast_config()).await;
    assert_eq!(
        registered[0].state,
        JobState::Existing,
        "{:?}",
        registered[0]
    );
    assert_eq!(
        get_doi_json(&sandbox, &doi).await["data"]["attributes"]["state"],
        "findable"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_draft_is_not_a_publishing_targets_deposit_when_reconciling_but_is_a_drafting_ones() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let (drafts, publisher) = (datacite(&sandbox, ""), datacite(&sandbox, PUBLISH));
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(2), &metadata("Looked up"));
    deposit(&store, &drafts, &[ds], fast_config()).await;
    // What reconciling asks before a retry: has this target's deposit taken effect?
    let doi = doi::doi_for("10.80000", &ds.1);
    assert_eq!(
        drafts.lookup(&ds.1).await.unwrap().map(|r| r.identifier),
        Some(doi.clone())
    );
    assert_eq!(
        publisher.lookup(&ds.1).await.unwrap(),
        None,
        "still a draft: publishing it is yet to be done"
    );
    deposit(&store, &publisher, &[ds], fast_config()).await;
    assert_eq!(
        publisher.lookup(&ds.1).await.unwrap().map(|r| r.identifier),
        Some(doi)
    );
}

/// `PUT /dois/{doi}` as DataCite documents it: an upsert whose event raises a DOI's state.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn emulation_put_changes_a_doi_by_its_event_and_creates_one_that_is_not_there() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let account = sandbox.datacite_account();
    let put = |doi: &str, attributes: Value| {
        reqwest::Client::new()
            .put(format!("{}/dois/{doi}", sandbox.base_url()))
            .basic_auth(&account.repository, Some(&account.password))
            .header("content-type", "application/vnd.api+json")
            .body(json!({"data": {"type": "dois", "attributes": attributes}}).to_string())
            .send()
    };
    let draft = json!({"doi": "10.80000/abcd-ef01"});
    let created = put("10.80000/abcd-ef01", draft).await.unwrap();
    assert_eq!(
        created.status(),
        201,
        "the upsert creates a DOI that is not there"
    );
    let state = |v: Value| v["data"]["attributes"]["state"].clone();

    // Publishing needs a landing page: refused with DataCite's field message, still a draft.
    let refused = put("10.80000/abcd-ef01", json!({"event": "publish"}))
        .await
        .unwrap();
    assert_eq!(refused.status(), 422);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["source"] == "url"),
        "{body}"
    );
    assert_eq!(
        state(get_doi_json(&sandbox, "10.80000/abcd-ef01").await),
        "draft"
    );

    let complete = json!({
        "event": "publish",
        "url": "https://example.org/landing",
        "creators": [{"name": "Curie, Marie"}],
        "titles": [{"title": "T"}],
        "publisher": "Lab",
        "publicationYear": 2026,
        "types": {"resourceTypeGeneral": "Dataset"},
    });
    let published = put("10.80000/abcd-ef01", complete).await.unwrap();
    assert_eq!(published.status(), 200);
    assert_eq!(state(published.json().await.unwrap()), "findable");
    // Hidden, it is registered; never a draft again.
    let hidden = put("10.80000/abcd-ef01", json!({"event": "hide"}))
        .await
        .unwrap();
    assert_eq!(state(hidden.json().await.unwrap()), "registered");
    let untouched = put("10.80000/abcd-ef01", json!({"titles": [{"title": "U"}]}))
        .await
        .unwrap();
    let body: Value = untouched.json().await.unwrap();
    assert_eq!(state(body.clone()), "registered");
    assert_eq!(body["data"]["attributes"]["titles"][0]["title"], "U");
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_password_pauses_the_datacite_target() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = open_target(&sandbox.datacite_target_url(), Some("wrong".into())).unwrap();
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(7), &metadata("Locked out"));
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    assert_eq!(jobs[0].state, JobState::Queued);
    assert_eq!(jobs[0].attempts, 1);
    let paused = store.target_paused(target.scope_id()).unwrap().unwrap();
    assert!(
        paused.contains("401") && paused.contains("Bad credentials"),
        "{paused}"
    );
}

/// DataCite answers 401 for a repository id it does not know as for a wrong password: the
/// deposit it pauses says to check both, as `lodge target test` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deposit_paused_by_datacites_401_names_the_repository_id_as_well_as_the_password() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(7), &metadata("Locked out"));
    let account = sandbox.datacite_account();
    let url = sandbox
        .datacite_target_url()
        .replace(&account.repository, "LODGE.MISTYPED");
    let mut cmd = lodge_in(&lab);
    cmd.args(["deposit", "--all", "--target", &url])
        .args(["--token", &account.password])
        .args(FAST);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "paused    ds007",
            "not authorised (HTTP 401)",
            "DataCite's 401 is for the repository id or its password: check repository= in \
             the target's URL (the id you sign in to Fabrica with), and give the right token \
             with --token (or LODGE_TOKEN), then run the command again",
        ],
    );
    assert_eq!(sandbox.doi_count(), 0);
}

/// A DOI Lodge minted whose metadata names other content since is not Lodge's to change,
/// and a repair mints no other: the advice is what a person does at DataCite, not to
/// repair again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_doi_changed_to_carry_another_key_is_not_left_to_a_repair() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let target = datacite(&sandbox, "");
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(3), &metadata("Mine"));
    let jobs = deposit(&store, &target, &[ds], fast_config()).await;
    let doi = jobs[0].identifier.clone().unwrap();
    // Its key changed in Fabrica, say.
    let account = sandbox.datacite_account();
    let changed = json!({"data": {"type": "dois", "attributes": {"alternateIdentifiers": [{
        "alternateIdentifier": "b".repeat(64),
        "alternateIdentifierType": mapping::KEY_IDENTIFIER_TYPE,
    }]}}});
    let resp = reqwest::Client::new()
        .put(format!("{}/dois/{doi}", sandbox.base_url()))
        .basic_auth(&account.repository, Some(&account.password))
        .header("content-type", "application/vnd.api+json")
        .body(changed.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);

    let document = store.document(&ds.1).unwrap().unwrap();
    let quiet: lodge::targets::ProgressSink = Arc::new(|_| {});
    let repair = repair_deposit(
        target.as_ref(),
        &jobs[0],
        &document,
        ReadBack::Sizes,
        &quiet,
    )
    .await;
    let Repair::NothingSent { why: Some(why), .. } = &repair else {
        panic!("nothing a repair can send: {repair:?}")
    };
    assert_all(
        why,
        &[
            "a repair neither changes it nor mints another for this dataset",
            "put this dataset's content key back in its metadata",
        ],
    );
    assert!(!why.contains("repair again"), "{why}");
    assert_eq!(sandbox.doi_count(), 1);
}

#[test]
fn target_urls_name_what_is_missing() {
    let err = |u: &str| open_target(u, None).err().unwrap().to_string();
    assert!(err("datacite+https://api.test.datacite.org?repository=A.B").contains("prefix"));
    // The example shown is one of the kind given, not a sandbox's.
    assert!(
        err("datacite+https://api.test.datacite.org?repository=A.B")
            .contains("Example: datacite+https://api.datacite.org?prefix=10.12345&repository=")
    );
    assert!(err("datacite+https://api.test.datacite.org?prefix=10.1234").contains("repository"));
    assert!(
        err("datacite+https://api.test.datacite.org?prefix=10.1234&repository=A.B&state=publish")
            .contains("landing page")
    );
    assert!(
        err("datacite+http://datacite.example.org?prefix=10.1234&repository=A.B").contains("https")
    );
    // A prefix with a space would be another target, one DataCite refuses.
    assert!(
        err("datacite+https://api.test.datacite.org?prefix=10.1234%20&repository=A.B")
            .contains("'10.1234 ' is not a DOI prefix")
    );
    // A landing page template is checked before a DOI (never withdrawn) is minted with it:
    // a mistyped placeholder, one page for every DOI, an address that is no web page.
    let publish = "datacite+https://api.test.datacite.org?prefix=10.1234&repository=A.B\
                   &state=publish&url=";
    for (template, said) in [
        (
            "https://x.org/{dio}",
            "holds {dio}: only {doi} and {key} are filled in",
        ),
        ("https://x.org/", "is the same for every DOI: put {doi}"),
        ("ftp://x.org/{doi}", "is no http(s) address"),
    ] {
        let refused = err(&format!("{publish}{template}"));
        assert!(refused.contains(said), "{template}: {refused}");
    }
    let t = open_target(
        "datacite+https://api.test.datacite.org?prefix=10.1234&repository=A.B",
        Some("secret".into()),
    )
    .unwrap();
    assert_eq!(
        t.scope_id(),
        "datacite+https://api.test.datacite.org:443/10.1234"
    );
    assert!(!t.scope_id().contains("secret"));

    // What the store keeps to open it again has its options and no credential.
    let t = open_target(
        "datacite+https://api.test.datacite.org?prefix=10.1234&repository=A.B&state=register&url=https://lab.example.org/{doi}",
        Some("secret".into()),
    )
    .unwrap();
    assert_eq!(
        t.target_url(),
        "datacite+https://api.test.datacite.org/?prefix=10.1234&repository=A.B&state=register&url=https://lab.example.org/{doi}"
    );
    assert!(!t.target_url().contains("secret"));
    // A credential written into the URL is refused (URLs are saved and printed), without
    // being shown.
    let refused =
        err("datacite+https://me:hunter2@api.test.datacite.org?prefix=10.1234&repository=A.B");
    assert!(
        refused.contains("a user name and password before the host"),
        "{refused}"
    );
    assert!(!refused.contains("hunter2"), "{refused}");
}

// ---- contract: the documented examples ----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emulation_accepts_the_documented_create_request_and_answers_the_documented_shape() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let account = sandbox.datacite_account();
    let client = reqwest::Client::new();
    let post = || {
        client
            .post(format!("{}/dois", sandbox.base_url()))
            .basic_auth(&account.repository, Some(&account.password))
            .header("content-type", "application/vnd.api+json")
            .body(example("create-request.json").to_string())
            .send()
    };
    let resp = post().await.unwrap();
    assert_eq!(resp.status(), 201);
    let body: Value = resp.json().await.unwrap();
    let documented = example("create-response-201.json");
    assert_eq!(body["data"]["id"], documented["data"]["id"]);
    assert_eq!(body["data"]["type"], documented["data"]["type"]);
    for (field, value) in documented["data"]["attributes"].as_object().unwrap() {
        assert_eq!(
            &body["data"]["attributes"][field], value,
            "attribute {field}"
        );
    }

    let again = post().await.unwrap();
    assert_eq!(again.status(), 422);
    assert_eq!(
        again.json::<Value>().await.unwrap(),
        example("error-422-taken.json")
    );

    let unknown = get_doi(&sandbox, "10.80000/none-0000").await;
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        unknown.json::<Value>().await.unwrap(),
        example("error-404.json")
    );

    let denied = client
        .post(format!("{}/dois", sandbox.base_url()))
        .basic_auth(&account.repository, Some("wrong"))
        .body(example("create-request.json").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 401);
    assert_eq!(
        denied.json::<Value>().await.unwrap(),
        example("error-401.json")
    );
}

#[test]
fn lodge_requests_carry_every_field_of_the_documented_example() {
    let documented = example("create-request.json");
    let doc = lodge::content::ContentDocument::new(
        vec![lodge::content::ManifestEntry {
            path: "a.csv".into(),
            size: 1,
            sha256: lodge::content::Sha256Hex::of(b"a"),
        }],
        &metadata("Fields"),
    );
    let ours = mapping::attributes(
        "10.80000/abcd-ef12",
        &doc.key(),
        &doc,
        mapping::DoiState::Publish,
        Some("https://example.org"),
        None,
    );
    for field in documented["data"]["attributes"].as_object().unwrap().keys() {
        assert!(ours.get(field).is_some(), "Lodge's request lacks {field}");
    }
}

#[test]
fn documented_error_bodies_are_classified_as_invariant_5_says() {
    let body = |name: &str| example(name).to_string();
    assert_eq!(
        Failure::from_status(401, None, &body("error-401.json")).class(),
        FailureClass::PauseTarget
    );
    let Failure::Rejected { problems, .. } =
        Failure::from_status(422, None, &body("error-422-taken.json"))
    else {
        panic!("422 is a rejection unless the client reads it as 'taken'");
    };
    assert_eq!(problems[0].field, "doi");
    assert_eq!(problems[0].message, "This DOI has already been taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_doi_can_be_minted_for_what_was_just_deposited_to_another_target() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let db = lab.path("lodge.db");
    let store = lab.store("lodge.db");
    let deposited = add(
        &store,
        &lab.numbered_folder(8),
        &metadata("Deposited first"),
    );
    let not_yet = add(&store, &lab.numbered_folder(9), &metadata("Not deposited"));
    let records = deposit(&store, &target_of(&sandbox), &[deposited], fast_config()).await;
    let record_url = records[0].url.clone().unwrap();

    let url = format!(
        "{}&state=publish&landing_from={}",
        sandbox.datacite_target_url(),
        sandbox.target_url()
    );
    // A dry run already knows which one has no landing page, and sends nothing.
    let mut dry = lodge(&db);
    dry.args(["deposit", "--dry-run", "--all", "--target", &url]);
    let out = run(dry).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "create   ds008",
            "refused  ds009: rejected: url: no landing page",
            "deposit it there first — then deposit it here again",
            "nothing was sent",
        ],
    );
    assert_eq!(sandbox.doi_count(), 0);

    let mut cmd = lodge(&db);
    cmd.args(["deposit", "--all", "--target", &url, "--token"])
        .arg(sandbox.datacite_account().password)
        .args(["--retry-base", "5ms"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "one of two has no landing page: {text}"
    );
    // Refused before it is queued, as the dry run said: no job is left to be refused.
    assert!(
        text.contains(
            "refused  ds009: rejected: url: no landing page: this dataset has no record on"
        ),
        "{text}"
    );
    assert!(
        text.contains("deposit it there first — then deposit it here again"),
        "{text}"
    );
    assert!(
        !text.contains("fix what it names"),
        "no metadata to fix: {text}"
    );
    assert!(
        store.jobs_of_dataset(not_yet.0).unwrap().is_empty(),
        "nothing queued for the dataset with no landing page"
    );

    let doi = doi::doi_for("10.80000", &deposited.1);
    let body: Value = get_doi(&sandbox, &doi).await.json().await.unwrap();
    assert_eq!(body["data"]["attributes"]["state"], "findable");
    assert_eq!(body["data"]["attributes"]["url"], record_url.as_str());
    assert_eq!(sandbox.doi_count(), 1);
}

/// A DOI that resolves (registered or findable) is never deleted: it may not lead to a
/// draft only its owner sees. Such a deposit is refused before anything is minted, as the
/// dry run says, naming the draft and what to do; a draft DOI may point at the draft. Once
/// the draft is published at the repository and `lodge verify` found it so, the DOI is
/// made findable with the record's public page.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_resolving_doi_is_not_given_a_draft_only_its_owner_sees_as_its_landing_page() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(3), &metadata("Drafted first"));
    let invenio_token = sandbox.invenio_account().token;
    let drafts_url = format!("{}?state=draft", sandbox.invenio_target_url());
    let drafts = open_target(&drafts_url, Some(invenio_token.clone())).unwrap();
    let drafted = deposit(&store, &drafts, &[ds], fast_config()).await;
    let record = drafted[0].identifier.clone().unwrap();
    let base = sandbox.base_url();
    let draft_page = format!("{base}/uploads/{record}");
    assert_eq!(drafted[0].url.as_deref(), Some(draft_page.as_str()));

    let dois = |state: &str| {
        format!(
            "{}&state={state}&landing_from={drafts_url}",
            sandbox.datacite_target_url()
        )
    };
    let lodge_deposit = |state: &str, dry_run: bool| {
        let mut cmd = lodge_in(&lab);
        cmd.args(["deposit", "--all", "--target", &dois(state)])
            .args(["--token", &sandbox.datacite_account().password])
            .args(FAST);
        if dry_run {
            cmd.arg("--dry-run");
        }
        run(cmd)
    };
    let refused = format!(
        "refused  ds003: rejected: url: no public landing page: this dataset's record on \
         {drafts_url} is draft {record} ({draft_page}), which only its owner sees"
    );
    for (state, reported, dry_run) in [
        ("publish", "findable", true),
        ("publish", "findable", false),
        ("register", "registered", false),
    ] {
        let out = lodge_deposit(state, dry_run).await;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert_all(
            &text(&out),
            &[
                &refused,
                &format!("a {reported} DOI resolves for anyone and cannot be withdrawn"),
                &format!("publish {record} at the repository and run `lodge verify`"),
                "or mint a draft DOI for now (state=draft) — then deposit it here again",
            ],
        );
        assert!(!text(&out).contains("fix what it names"), "{}", text(&out));
    }
    assert_eq!(sandbox.doi_count(), 0, "nothing minted");
    let datacite_jobs = || {
        (store.jobs_of_dataset(ds.0).unwrap().into_iter())
            .filter(|j| j.target.starts_with("datacite+"))
            .count()
    };
    assert_eq!(datacite_jobs(), 0, "nothing queued");

    // A draft DOI resolves nowhere and can be deleted: it may point at the draft.
    let out = lodge_deposit("draft", false).await;
    assert!(out.status.success(), "{}", text(&out));
    let doi = doi::doi_for("10.80000", &ds.1);
    let attributes = |body: Value| body["data"]["attributes"].clone();
    let minted = attributes(get_doi_json(&sandbox, &doi).await);
    assert_eq!(minted["state"], "draft");
    assert_eq!(minted["url"], draft_page.as_str());

    // Published on the repository's pages: Lodge does not know yet, and still refuses.
    let publish = reqwest::Client::new()
        .post(format!("{base}/api/records/{record}/draft/actions/publish"))
        .bearer_auth(&invenio_token)
        .send()
        .await
        .unwrap();
    assert_eq!(publish.status(), 202);
    let out = lodge_deposit("publish", false).await;
    assert_all(&text(&out), &[&refused]);
    let mut verify = lodge_in(&lab);
    verify
        .args(["verify", "1", "--target", &drafts_url])
        .args(["--token", &invenio_token]);
    let out = run(verify).await;
    assert_all(&text(&out), &["published since"]);

    // Known published: the DOI is raised, with the record's public page.
    let out = lodge_deposit("publish", false).await;
    assert!(out.status.success(), "{}", text(&out));
    let raised = attributes(get_doi_json(&sandbox, &doi).await);
    assert_eq!(raised["state"], "findable");
    assert_eq!(raised["url"], format!("{base}/records/{record}"));
    assert_eq!(sandbox.doi_count(), 1);
}

/// A prefix that is not the repository's is refused by DataCite; the refusal says to fix
/// the target's URL, not the dataset's metadata.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_prefix_not_the_repositorys_is_said_to_be_the_targets_to_fix() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    add(&store, &lab.numbered_folder(5), &metadata("Wrong prefix"));
    let account = sandbox.datacite_account();
    let url = format!(
        "datacite+http://{}?prefix=10.99999&repository={}",
        sandbox.addr(),
        account.repository
    );
    let mut cmd = lodge_in(&lab);
    cmd.args([
        "deposit",
        "--all",
        "--target",
        &url,
        "--token",
        &account.password,
    ])
    .args(FAST);
    let out = run(cmd).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "rejected  ds005",
            "Prefix is not assigned to repository",
            "the target's prefix= is not one of its repository's: give the repository's own \
             prefix in the target's URL",
            // The target's own URL, scheme and all, with the place for the prefix marked.
            &format!(
                "then use 'datacite+http://{}/?prefix=PREFIX&repository={}' with one for \
                 PREFIX",
                sandbox.addr(),
                account.repository
            ),
        ],
    );
    assert!(!t.contains("fix what it names"), "not the metadata: {t}");
    assert_eq!(sandbox.doi_count(), 0);

    // A retry would be refused the same way: it is left, and the deposit to run once the
    // refusal is put right is named.
    let mut retry = lodge_in(&lab);
    retry.args(["retry", "1", "--token", &account.password]);
    let t = text(&run(retry).await);
    assert_all(
        &t,
        &[
            "job 1 was rejected",
            "the server would refuse it again the same way; fix that, then deposit the \
             dataset again: `lodge deposit --target",
            "1 --token TOKEN`",
        ],
    );
    assert_eq!(sandbox.doi_count(), 0);

    // `status` says, under the refused item, where it is put right or given up on.
    let mut status = lodge_in(&lab);
    status.arg("status");
    let t = text(&run(status).await);
    assert_all(
        &t,
        &[
            "prefix= is not one of its repository's: give the repository's own prefix",
            "with one for PREFIX), then deposit again; or give it up: `lodge dismiss 1`",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_doi_is_retried_from_the_command_line_with_its_prefix_state_and_landing_page() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(3), &metadata("Landed first"));
    let records = deposit(&store, &target_of(&sandbox), &[ds], fast_config()).await;
    let record_url = records[0].url.clone().unwrap();

    // The DOI's first deposit fails for good: the server is down for every attempt.
    sandbox.set_faults(FaultConfig {
        fail_before_commit: 1.0,
        ..FaultConfig::default()
    });
    let url = format!(
        "{}&state=publish&landing_from={}",
        sandbox.datacite_target_url(),
        sandbox.target_url()
    );
    let password = sandbox.datacite_account().password;
    let mut first = lodge_in(&lab);
    first
        .args(["deposit", "--all", "--max-attempts", "1", "--target", &url])
        .args(["--token", &password])
        .args(FAST);
    let out = run(first).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_all(&text(&out), &["failed    ds003", "retry with `lodge retry"]);
    assert_eq!(sandbox.doi_count(), 0);

    // The target's identity as `status` prints it (no prefix or repository query: no URL
    // that opens a target) is taken by every `--target` about what the store holds.
    let identity = store.job(2).unwrap().target;
    assert!(identity.starts_with("datacite+"), "{identity}");
    assert!(!identity.contains("prefix="), "{identity}");
    for args in [
        &["status", "--target", &identity][..],
        &["history", "--target", &identity],
        &["forget", "--older-than", "0s", "--target", &identity],
        &["verify", "--all", "--target", &identity],
    ] {
        let mut cmd = lodge_in(&lab);
        cmd.args(args);
        let out = run(cmd).await;
        let t = text(&out);
        assert!(!t.contains("is not a target URL"), "{args:?}: {t}");
        if args[0] == "verify" {
            // Understood: nothing landed there to check.
            assert!(
                t.contains(&format!("no deposit of this dataset is on {identity}")),
                "{t}"
            );
        } else {
            assert!(out.status.success(), "{args:?}: {t}");
        }
    }
    let mut cmd = lodge_in(&lab);
    cmd.args(["status", "--target", &identity]);
    assert_all(&text(&run(cmd).await), &["ds003", " failed "]);

    // `lodge retry` opens the target again from what the store kept of its URL: the
    // prefix and repository, the state to publish in, and where the landing page comes from.
    sandbox.set_faults(FaultConfig::default());
    let mut retry = lodge_in(&lab);
    retry
        .args(["retry", "--all-failed", "--token", &password])
        .args(FAST);
    let out = run(retry).await;
    assert!(out.status.success(), "{}", text(&out));
    let doi = doi::doi_for("10.80000", &ds.1);
    assert_all(&text(&out), &[&format!("deposited ds003 -> {doi}")]);
    let body: Value = get_doi(&sandbox, &doi).await.json().await.unwrap();
    assert_eq!(body["data"]["attributes"]["state"], "findable");
    assert_eq!(body["data"]["attributes"]["url"], record_url.as_str());
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dry_run_to_a_publishing_target_names_the_draft_doi_it_would_publish() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let ds = add(&store, &lab.numbered_folder(4), &metadata("Drafted"));
    let drafts = datacite(&sandbox, "");
    deposit(&store, &drafts, &[ds], fast_config()).await;
    let doi = doi::doi_for("10.80000", &ds.1);

    let password = sandbox.datacite_account().password;
    let publish = format!("{}{PUBLISH}", sandbox.datacite_target_url());
    let lodge_deposit = |extra: &[&str]| {
        let mut cmd = lodge_in(&lab);
        cmd.args([
            "deposit", "--all", "--target", &publish, "--token", &password,
        ])
        .args(FAST)
        .args(extra);
        run(cmd)
    };
    let out = lodge_deposit(&["--dry-run"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[&format!(
            "takes up ds004: key {}, DOI {doi}, made already by the deposit to {}: made \
             findable if it is not, not minted again",
            ds.1.short(),
            drafts.scope_id()
        )],
    );
    // Counted as what it is: no DOI is created.
    assert_all(
        &text(&out),
        &[
            "dry run: 0 would be created, 1 would take up a record made already; nothing was \
           sent or recorded",
        ],
    );
    // The check it names runs as it is written, the token given where it says TOKEN: the
    // target's URL with its state, not the identity its deposits are recorded under.
    let said = text(&out);
    let check = said
        .split_once("the target was not asked: `lodge ")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(command, _)| command)
        .unwrap_or_else(|| panic!("{said}"));
    let args: Vec<String> = check
        .split(' ')
        .map(|a| match a.trim_matches('\'') {
            "TOKEN" => password.clone(),
            a => a.to_string(),
        })
        .collect();
    let checked = run({
        let mut cmd = lodge_in(&lab);
        cmd.args(&args);
        cmd
    })
    .await;
    assert!(checked.status.success(), "{check}: {}", text(&checked));
    let out = lodge_deposit(&[]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[&format!(
            "existing  ds004 -> {doi} (the server had it, and it was a draft DOI and is \
             findable now)"
        )],
    );
    assert_eq!(sandbox.doi_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn target_test_names_a_prefix_the_repository_lacks_and_the_ones_it_has() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let account = sandbox.datacite_account();
    let test = |url: String| {
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "test", &url, "--token", &account.password]);
        run(cmd)
    };

    let wrong = format!(
        "datacite+http://{}?prefix=10.99999&repository={}",
        sandbox.addr(),
        account.repository
    );
    let out = test(wrong).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "ok      credentials",
            "FAILED  prefix: 10.99999 is not one of repository LODGE.SANDBOX's prefixes \
             (10.80000), so DataCite would refuse every DOI under it",
            "'datacite+http://…?prefix=10.80000&repository=LODGE.SANDBOX'",
            "the prefix check failed",
        ],
    );
    assert_eq!(sandbox.doi_count(), 0, "testing mints nothing");

    // A repository id DataCite does not know is refused as a wrong password is: both named.
    let unknown = format!(
        "datacite+http://{}?prefix=10.80000&repository=LODGE.NOPE",
        sandbox.addr()
    );
    let out = test(unknown).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "FAILED  credentials: not authorised (HTTP 401)",
            "check repository=LODGE.NOPE in the target's URL",
        ],
    );

    let out = test(sandbox.datacite_target_url()).await;
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_all(
        &t,
        &[
            "ok      prefix: 10.80000 is one of LODGE.SANDBOX's prefixes",
            "is ready",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn target_test_of_another_repository_url_sent_a_saved_targets_token_does_not_name_that_targets_add_command()
 {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let account = sandbox.datacite_account();
    let saved = sandbox.datacite_target_url();
    let mut add = lodge_in(&lab);
    add.args(["target", "add", "dois", &saved, "--secret-stdin"]);
    let out = run_with_stdin(add, &format!("{}\n", account.password));
    assert!(out.status.success(), "{}", text(&out));
    let test = |url: &str, token: Option<&str>| {
        let mut cmd = lodge_in(&lab);
        cmd.args(["target", "test", url]);
        if let Some(token) = token {
            cmd.args(["--token", token]);
        }
        run(cmd)
    };

    // The same prefix, so the same place as 'dois', whose token is sent; but a repository
    // id that is not its own. Storing 'dois''s token again would mend nothing.
    let other = saved.replace("LODGE.SANDBOX", "LODGE.NOPE");
    let out = test(&other, None).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_all(
        &t,
        &[
            "FAILED  credentials: not authorised (HTTP 401)",
            "the token sent is the one saved with target 'dois', whose URL is not this one",
            "`lodge target test dois`",
        ],
    );
    assert!(!t.contains("store the right token"), "{t}");

    // Given with a token of its own, that token is the one to fix.
    let out = test(&other, Some("wrong")).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("the credentials check failed: give the right token with --token"),
        "{t}"
    );
    assert!(!t.contains("store the right token"), "{t}");

    // The saved target's own URL is that target: storing its token again is the fix.
    let mut add = lodge_in(&lab);
    add.args(["target", "add", "dois", &saved, "--secret-stdin"]);
    let out = run_with_stdin(add, "expired\n");
    assert!(out.status.success(), "{}", text(&out));
    let out = test(&saved, None).await;
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains(
            "the credentials check failed: store the right token with `lodge target add dois"
        ),
        "{t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn emulation_shows_its_repository_with_its_prefix_publicly_and_no_other() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let client = reqwest::Client::new();
    let get = |id: &str| {
        client
            .get(format!("{}/repositories/{id}", sandbox.base_url()))
            .send()
    };

    // DataCite's repository pages need no credentials, and ids are not case-sensitive.
    let resp = get("lodge.sandbox").await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"],
        "application/vnd.api+json",
        "JSON:API"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["data"]["type"], "repositories");
    assert_eq!(body["data"]["id"], "lodge.sandbox");
    assert_eq!(
        body["data"]["relationships"]["prefixes"]["data"],
        json!([{"id": "10.80000", "type": "prefixes"}])
    );

    let unknown = get("OTHER.REPO").await.unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        unknown.json::<Value>().await.unwrap(),
        example("error-404.json")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sandboxs_page_lists_what_its_invenio_and_datacite_emulations_hold() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let store = lab.store("lodge.db");
    let page = || async {
        let resp = reqwest::get(format!("{}/", sandbox.base_url()))
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        resp.text().await.unwrap()
    };
    let html = page().await;
    assert!(!html.contains("InvenioRDM emulation"), "{html}");
    assert!(!html.contains("DataCite emulation"), "{html}");

    let ds = add(&store, &lab.numbered_folder(1), &metadata("Soil <cores>"));
    let invenio = open_target(
        &sandbox.invenio_target_url(),
        Some(sandbox.invenio_account().token),
    )
    .unwrap();
    let landed = deposit(&store, &invenio, &[ds], fast_config()).await;
    assert_eq!(landed[0].state, JobState::Deposited, "{:?}", landed[0]);
    let record = landed[0].identifier.clone().unwrap();
    let minted = deposit(
        &store,
        &datacite(&sandbox, "&url=https://example.org/{key}"),
        &[ds],
        fast_config(),
    )
    .await;
    assert_eq!(minted[0].state, JobState::Deposited, "{:?}", minted[0]);
    let doi = minted[0].identifier.clone().unwrap();

    let html = page().await;
    assert_all(
        &html,
        &[
            "InvenioRDM emulation",
            "1 record or draft, newest first",
            &format!("<a href=\"/records/{record}\">{record}</a>"),
            "Soil &lt;cores&gt;",
            "published",
            "DataCite emulation",
            "1 DOI, newest first",
            &format!("<a href=\"/dois/{doi}\">{doi}</a>"),
            "draft",
            &format!("https://example.org/{}", ds.1.to_hex()),
        ],
    );
    assert!(!html.contains("<cores>"), "escaped: {html}");
}
