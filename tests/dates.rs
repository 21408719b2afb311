//! Dates other than the publication's (when the data were collected, until when they are
//! valid): given with `lodge add --date "Collected 2025-03-01/2025-06-30"` or read from a
//! `.zenodo.json`'s `dates`, shown by `lodge show`, part of the content key, and sent to
//! InvenioRDM and DataCite as `dates`. One that cannot be read is refused before anything is
//! added; a date type DataCite does not have, or a date that is not one, is a metadata
//! problem naming the flag, and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dates_given_on_the_command_line_are_shown_keyed_and_reach_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let dates = [
        "--date",
        "collected 2025-03-01 / 2025-06-30",
        "--date",
        "Valid 2030",
    ];
    let dated = key_in(&added_titled_with(&lab, &folder, "Cores", &dates));
    assert_ne!(dated, plain, "dates are part of the key");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "dates        Collected 2025-03-01/2025-06-30",
            "             Valid 2030",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["dates"],
        json!([
            {"date": "2025-03-01/2025-06-30", "type": {"id": "collected"}},
            {"date": "2030", "type": {"id": "valid"}},
        ])
    );
    assert_eq!(
        attributes["dates"],
        json!([
            {"date": "2025-03-01/2025-06-30", "dateType": "Collected"},
            {"date": "2030", "dateType": "Valid"},
        ])
    );

    // `--date ""` takes them away: the key is the plain one again.
    let cleared = ["--date", ""];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &cleared)),
        plain
    );
}

/// A `--date` without both parts is refused before anything is added; a misspelt date type
/// or a date that is not one is a metadata problem naming the flag, and a deposit sends
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_date_that_cannot_be_sent_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(&lab, &folder, "Cores", &["--date", "2025-03-01"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &["--date '2025-03-01' is not a date: write the date type, then the date or range"],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added");

    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--date", "Colected 2025", "--date", "Created spring 2025"],
    );
    assert_all(
        &text(&out),
        &[
            "dates[0]: 'Colected' is not a DataCite date type: did you mean Collected? \
             (--date \"Collected 2025\")",
            "dates[1]: 'spring 2025' is not a date: write YYYY, YYYY-MM or YYYY-MM-DD",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s dates (a start and an end, or either) are read into the dataset's, and
/// no longer named among what the file gives that Lodge does not send.
#[test]
fn zenodo_json_dates_prefill_the_dates() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "surveyed",
        r#""dates": [{"start": "2025-03-01", "end": "2025-06-30", "type": "Collected"}],
           "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("dates"), "{said}");
    assert_all(&shown, &["dates        Collected 2025-03-01/2025-06-30"]);
}
