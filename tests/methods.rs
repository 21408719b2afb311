//! Methods (how the data were collected or made): given with `lodge add --methods TEXT` or
//! read from a `.zenodo.json`'s `method`, shown by `lodge show`, part of the content key,
//! and sent beside the description: to DataCite as a `Methods` description, to InvenioRDM
//! as an additional description of type methods.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn methods_given_on_the_command_line_are_shown_keyed_and_reach_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let methods = "Cores taken with a Russian corer.\nSliced at 1 cm.";
    let with = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--methods", methods],
    ));
    assert_ne!(with, plain, "methods are part of the key");
    let respaced = format!("  {methods}\n");
    assert_eq!(
        key_in(&added_titled_with(
            &lab,
            &folder,
            "Cores",
            &["--methods", &respaced]
        )),
        with
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "methods      Cores taken with a Russian corer.",
            "             Sliced at 1 cm.",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    // InvenioRDM renders it as HTML: its two lines, one paragraph.
    assert_eq!(
        record["metadata"]["additional_descriptions"],
        json!([{
            "description": "<p>Cores taken with a Russian corer.<br>Sliced at 1 cm.</p>",
            "type": {"id": "methods"}
        }])
    );
    assert_eq!(
        attributes["descriptions"],
        json!([{"description": methods, "descriptionType": "Methods"}])
    );

    // `--methods ""` takes them away: the key is the plain one again.
    let cleared = ["--methods", ""];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &cleared)),
        plain
    );
}

/// A `.zenodo.json`'s `method` is read into the dataset's methods, and no longer named
/// among what the file gives that Lodge does not send.
#[test]
fn zenodo_json_method_prefills_the_methods() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "surveyed",
        r#""method": "Sieved at 2 mm", "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("method"), "{said}");
    assert_all(&shown, &["methods      Sieved at 2 mm"]);
}
