//! Communities (Zenodo's and every InvenioRDM site's collections): given with `lodge add
//! --community soil-science` (or a community's address) or read from a `.zenodo.json`'s
//! `communities`, shown by `lodge show`, part of the content key; a deposit to InvenioRDM
//! asks each community to include the published record, once however often it is retried,
//! and one the site does not have is refused before a draft is made.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::Value;
use support::*;

/// The communities asked to include the work of InvenioRDM record `id`, oldest first.
async fn communities_asked(sandbox: &lodge::sandbox::RunningSandbox, id: &str) -> Vec<String> {
    let requests = invenio_json(sandbox, &format!("/api/records/{id}/requests")).await;
    let hits = requests["hits"]["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let receivers = hits.iter().map(|r| &r["receiver"]["community"]);
    receivers
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The emulation's ids of its two sample communities.
const SOIL: &str = "3f0a5a4e-5d3c-4c47-9e35-1c1f2b8a0001";
const LAKES: &str = "3f0a5a4e-5d3c-4c47-9e35-1c1f2b8a0002";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn communities_are_keyed_and_each_is_asked_once_to_include_the_published_record() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let communities = [
        "--community",
        "soil-science",
        "--community",
        "https://zenodo.org/communities/Lake-Sediments/records",
    ];
    let asked = key_in(&added_titled_with(&lab, &folder, "Cores", &communities));
    assert_ne!(asked, plain, "communities are part of the key");
    let respelt = [
        "--community",
        " Soil-Science",
        "--community",
        "lake-sediments",
    ];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &respelt)),
        asked
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["communities  soil-science, lake-sediments"]);

    let DepositedToBoth { record, .. } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    let id = record["id"].as_str().unwrap().to_string();
    assert_eq!(communities_asked(&sandbox, &id).await, [SOIL, LAKES]);

    // The deposit is recorded: depositing again replays it, asking nothing.
    let requests_before = sandbox.stats().requests;
    let mut again = lodge_in(&lab);
    let url = sandbox.invenio_target_url();
    let token = sandbox.invenio_account().token;
    again.args(["deposit", "--all", "--token", &token, "--target", &url]);
    let out = run(again).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sandbox.stats().requests, requests_before);
    assert_eq!(communities_asked(&sandbox, &id).await, [SOIL, LAKES]);

    // Another machine, with a store of its own, finds the record by its key: the requests
    // are made already, and none is made twice.
    let other = Lab::new();
    let copy = other.numbered_folder(1);
    let out = add_titled_with(&other, &copy, "Cores", &communities);
    assert!(out.status.success(), "{}", text(&out));
    let mut elsewhere = lodge_in(&other);
    elsewhere.args(["deposit", "--all", "--token", &token, "--target", &url]);
    let out = run(elsewhere).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[&format!("-> {id} (the server already had it)")],
    );
    assert_eq!(communities_asked(&sandbox, &id).await, [SOIL, LAKES]);
}

/// A community the site does not have refuses the deposit before a draft is made (once, not
/// retried), naming it; a name that cannot be a community's is a metadata problem naming
/// the flag, and nothing is deposited.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_community_the_site_does_not_have_is_refused_before_a_draft_is_made() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let unknown = [
        "--community",
        "no-such-thing",
        "--community",
        "lab-internal",
    ];
    let added = added_titled_with(&lab, &folder, "Cores", &unknown);
    assert!(!key_in(&added).is_empty());
    let mut cmd = lodge_in(&lab);
    let url = sandbox.invenio_target_url();
    let token = sandbox.invenio_account().token;
    cmd.args(["deposit", "--all", "--token", &token, "--target", &url]);
    let out = run(cmd).await;
    assert!(!out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "communities[0]: InvenioRDM has no community 'no-such-thing' this account can see: \
             check its short name, the part after /communities/ in its address",
            // Restricted to its members: about the community, so the target is not paused.
            "communities[1]: InvenioRDM has no community 'lab-internal' this account can see",
            // And where that is fixed.
            &format!(
                "— fix what it names (the metadata: `lodge add {}` with the flags that change \
                 it, or the window's details), then deposit again",
                folder.display()
            ),
        ],
    );
    let store = lodge::store::Store::open(&lab.path("lodge.db")).unwrap();
    assert!(store.target_paused(&url).unwrap().is_none(), "not paused");
    assert_eq!(sandbox.invenio_counts(), (0, 0), "no draft made");

    let (other, fresh) = (
        Lab::new(),
        lab.sandbox("fresh", FaultConfig::default()).await,
    );
    let out = add_titled_with(
        &other,
        &other.numbered_folder(2),
        "Cores",
        &["--community", "soil science"],
    );
    assert_all(
        &text(&out),
        &[
            "communities[0]: 'soil science' is not a community's short name: write the part \
           after /communities/ in its address, e.g. soil-science",
        ],
    );
    deposit_all_refused_unsent(&other, &fresh).await;
}

/// A community mistyped (a letter more, a letter less) is refused as one the site does not
/// have, with the one the site has that it most likely meant, found by the site's search;
/// nothing is deposited.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mistyped_community_is_refused_naming_the_one_the_site_has_that_it_most_likely_meant() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let mistyped = [
        "--community",
        "soil-sciences",
        "--community",
        "lake-sediment",
        "--community",
        "soil",
    ];
    added_titled_with(&lab, &folder, "Cores", &mistyped);
    let mut cmd = lodge_in(&lab);
    let url = sandbox.invenio_target_url();
    let token = sandbox.invenio_account().token;
    cmd.args(["deposit", "--all", "--token", &token, "--target", &url]);
    let out = run(cmd).await;
    assert!(!out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "communities[0]: InvenioRDM has no community 'soil-sciences' this account can see \
             (did you mean 'soil-science', \"Soil science\"?): check its short name",
            "communities[1]: InvenioRDM has no community 'lake-sediment' this account can see \
             (did you mean 'lake-sediments', \"Lake sediments\"?)",
            // Part of the short name: the one community whose short name holds it.
            "communities[2]: InvenioRDM has no community 'soil' this account can see \
             (did you mean 'soil-science', \"Soil science\"?)",
        ],
    );
    assert_eq!(sandbox.invenio_counts(), (0, 0), "no draft made");

    // Given up on, the refusal names what sends the dataset again: a deposit, not a retry.
    let mut dismiss = lodge_in(&lab);
    dismiss.args(["dismiss", "1"]);
    let out = run(dismiss).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[&format!(
            "dismissed job 1 (rejected): it leaves `lodge status`; once what refused it is put \
             right, `lodge deposit --target {url} 1 --token TOKEN` deposits the dataset again"
        )],
    );
}

/// A `.zenodo.json`'s communities are read into the dataset's, and no longer named among
/// what the file gives that Lodge does not send.
#[test]
fn zenodo_json_communities_prefill_the_communities() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "gathered",
        r#""communities": [{"identifier": "soil-science"}, {"identifier": "lake-sediments"}],
           "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("communities"), "{said}");
    assert_all(&shown, &["communities  soil-science, lake-sediments"]);
}
