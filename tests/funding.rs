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

    // The funder left out: its award is not taken for the funder's name (DataCite got
    // "award=55" as one), and the line is refused naming what is missing.
    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--funding", "award=55; award-title=Orphan"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "'award=55; award-title=Orphan' begins with award=, not with the name: write the \
           name first",
        ],
    );

    // A funder-id that is no identifier: the fix named is the person's own funding without
    // it, not an award they never gave.
    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--funding",
            "European Commission; funder-id=00k4n6c3x; award=42",
        ],
    );
    assert_all(
        &text(&out),
        &[
            "funding[0]: '00k4n6c3x' is neither a ROR (https://ror.org/00k4n6c32) nor a Crossref \
           Funder ID (10.13039/501100000780): give one of them as funder-id=, or leave it out \
           (--funding \"European Commission; award=42\")",
        ],
    );
}

/// A `.zenodo.json`'s grants are read as funding where Lodge knows the funder by name (an EC
/// grant by its number, another funder's by `FUNDER_ID::NUMBER`): shown, and deposited, to
/// InvenioRDM linked to the site's funders and awards and to DataCite with the funder's id.
/// One whose funder Lodge cannot name is named, with how to give it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn zenodo_json_grants_are_funding_and_a_grant_lodge_cannot_name_is_said() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let (said, shown) = added_with_zenodo_json(
        &lab,
        "with-grants",
        r#""grants": [{"id": "101017452"}, {"id": "10.13039/100010269::221400"},
                      {"id": "10.13039/501100004963::12345"}]"#,
    );
    assert_all(
        &said,
        &[
            "also gives grants whose funder Lodge cannot name (10.13039/501100004963::12345), \
             which Lodge does not send",
            "such a grant is an id in Zenodo's list of awards, without its funder's name: \
             give the funder, its ROR or Crossref Funder ID and the award's number with \
             --funding",
        ],
    );
    assert_all(
        &shown,
        &[
            "funding      European Commission; funder-id=https://doi.org/10.13039/501100000780; \
             award=101017452",
            "             Wellcome Trust; funder-id=https://doi.org/10.13039/100010269; \
             award=221400",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    let funding = &record["metadata"]["funding"];
    assert_eq!(funding[0]["funder"]["id"], "00k4n6c32", "{funding}");
    assert_eq!(
        funding[0]["award"]["id"], "00k4n6c32::101017452",
        "{funding}"
    );
    assert_eq!(funding[1]["funder"]["id"], "029chgv08", "{funding}");
    assert_eq!(funding[1]["award"]["id"], "10.35802/221400", "{funding}");
    assert_eq!(
        attributes["fundingReferences"][0],
        json!({"funderName": "European Commission",
               "funderIdentifier": "https://doi.org/10.13039/501100000780",
               "funderIdentifierType": "Crossref Funder ID", "awardNumber": "101017452"})
    );

    // Funding given with --funding on the folder again: taken, and not said to differ from
    // the file as though the flag had been passed over.
    let folder = lab.path("with-grants");
    let (added, said) = lodge_said(
        &lab,
        &[
            "add",
            folder.to_str().unwrap(),
            "--funding",
            "European Commission; funder-id=00k4n6c32; award=101000001; award-title=Soil carbon",
        ],
    );
    assert!(added, "{said}");
    assert!(
        !said.contains("differs from the dataset in its funding"),
        "{said}"
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["award=101000001"]);
}
