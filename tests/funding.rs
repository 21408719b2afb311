//! Funding (who paid for the work, under which award): given with `lodge add --funding
//! "FUNDER; award=NUMBER; award-title=TITLE"`, shown by `lodge show`, part of the content
//! key, and sent to InvenioRDM as `funding` and to DataCite as `fundingReferences`. One that
//! cannot be read is refused before anything is added; one without a funder is a metadata
//! problem naming the flag, and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn funding_given_on_the_command_line_is_shown_keyed_and_reaches_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let funding = [
        "--funding",
        "National Science Foundation; award=2045678; award-title=Soil cores of the Alps",
        "--funding",
        "Wellcome Trust; funder-id=ror.org/029chgv08",
    ];
    let funded = key_in(&added_titled_with(&lab, &folder, "Cores", &funding));
    assert_ne!(funded, plain, "funding is part of the key");
    let respaced = [
        "--funding",
        " National Science Foundation ;award-title=Soil cores of the Alps; award=2045678",
        "--funding",
        "Wellcome Trust ; funder-id=https://ror.org/029CHGV08",
    ];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &respaced)),
        funded
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "funding      National Science Foundation; award=2045678; award-title=Soil cores \
             of the Alps",
            "             Wellcome Trust; funder-id=https://ror.org/029chgv08",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["funding"],
        json!([
            {"funder": {"name": "National Science Foundation"},
             "award": {"number": "2045678", "title": {"en": "Soil cores of the Alps"}}},
            // By the id its ROR has in InvenioRDM's funders vocabulary.
            {"funder": {"id": "029chgv08", "name": "Wellcome Trust"}},
        ])
    );
    assert_eq!(
        attributes["fundingReferences"],
        json!([
            {"funderName": "National Science Foundation", "awardNumber": "2045678",
             "awardTitle": "Soil cores of the Alps"},
            {"funderName": "Wellcome Trust", "funderIdentifier": "https://ror.org/029chgv08",
             "funderIdentifierType": "ROR"},
        ])
    );

    // `--funding ""` takes them away: the key is the unfunded one again.
    let cleared = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--funding", ""],
    ));
    assert_eq!(cleared, plain);
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert!(!shown.contains("funding "), "{shown}");
}

/// A `--funding` whose parts cannot be read is refused before anything is added, naming the
/// part; one that names no funder is a metadata problem naming the flag, and a deposit sends
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn funding_that_cannot_be_sent_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(&lab, &folder, "Cores", &["--funding", "NSF; 2045678"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "--funding 'NSF; 2045678': '2045678' should be funder-id=ROR, award=NUMBER or award-title=TITLE",
        ],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added");

    let out = add_titled_with(&lab, &folder, "Cores", &["--funding", "; award=2045678"]);
    assert_all(
        &text(&out),
        &[
            "funding[0]: '; award=2045678' names no funder: begin with the funder's name \
             (--funding \"European Commission; award=101000001; award-title=Soil carbon\")",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s grants are ids in Zenodo's list of awards, without their funders'
/// names: adding the folder says so and how to give them.
#[test]
fn zenodo_json_grants_are_named_with_how_to_give_the_funding() {
    let (said, _) = added_with_zenodo_json(
        &Lab::new(),
        "with-grants",
        r#""grants": [{"id": "777541"}]"#,
    );
    assert_all(
        &said,
        &[
            "also gives grants, which Lodge does not send",
            "a grant there is an id in Zenodo's list of awards, without its funder's name: \
             give the funder, its ROR or Crossref Funder ID and the award's number with \
             --funding \"European Commission; funder-id=00k4n6c32; award=NUMBER\", and a \
             deposit to Zenodo finds the award in its list",
        ],
    );
}
