//! Contributors (the contact person, who collected or curates the data): given with `lodge
//! add --contributor "Family, Given; role=ROLE"` or read from a `.zenodo.json`'s
//! `contributors`, shown by `lodge show`, part of the content key, and sent to InvenioRDM and
//! DataCite as `contributors` with their role. One that cannot be read is refused before
//! anything is added; one without a role DataCite knows is a metadata problem naming the flag,
//! and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn contributors_given_on_the_command_line_are_shown_keyed_and_reach_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let credited = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--contributor",
            "Curie, Pierre; role=contactperson; orcid=0000-0002-1825-0097; affiliation=ESPCI",
            "--contributor",
            "Soil Lab; role=HostingInstitution",
        ],
    ));
    assert_ne!(credited, plain, "contributors are part of the key");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "contributor  Curie, Pierre; role=ContactPerson; orcid=0000-0002-1825-0097; \
             affiliation=ESPCI",
            "             Soil Lab; role=HostingInstitution",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["contributors"],
        json!([
            {"person_or_org": {"type": "personal", "family_name": "Curie", "given_name": "Pierre",
               "identifiers": [{"scheme": "orcid", "identifier": "0000-0002-1825-0097"}]},
             "affiliations": [{"name": "ESPCI"}],
             "role": {"id": "contactperson"}},
            {"person_or_org": {"type": "organizational", "name": "Soil Lab"},
             "role": {"id": "hostinginstitution"}},
        ])
    );
    let types: Vec<&str> = attributes["contributors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["contributorType"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["ContactPerson", "HostingInstitution"]);
    assert_eq!(attributes["contributors"][0]["name"], "Curie, Pierre");

    // `--contributor ""` takes them away: the key is the plain one again.
    assert_eq!(
        key_in(&added_titled_with(
            &lab,
            &folder,
            "Cores",
            &["--contributor", ""]
        )),
        plain
    );
}

/// A `--contributor` whose parts cannot be read is refused before anything is added; one
/// without a role, or with a role DataCite does not have, is a metadata problem naming the
/// flag (the role most likely meant with it), and a deposit sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_contributor_that_cannot_be_sent_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--contributor", "Curie, Marie; Editor"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "--contributor 'Curie, Marie; Editor': 'Editor' should be role=..., orcid=..., \
             affiliation=..., ror=... or type=organisation",
        ],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added");

    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--contributor",
            "Curie, Marie",
            "--contributor",
            "Doe, Jane; role=DataColector",
        ],
    );
    assert_all(
        &text(&out),
        &[
            "contributors[0]: 'Curie, Marie' has no role: add role=ContactPerson",
            "contributors[1]: 'DataColector' is not a DataCite contributor type: did you mean \
             DataCollector? (--contributor \"Doe, Jane; role=DataCollector\")",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s contributors are read into the dataset's, and no longer named among
/// what the file gives that Lodge does not send.
#[test]
fn zenodo_json_contributors_prefill_the_contributors() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "credited",
        r#""contributors": [{"name": "Doe, Jane", "type": "DataCurator"}],
           "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("contributors"), "{said}");
    assert_all(&shown, &["contributor  Doe, Jane; role=DataCurator"]);
}
