//! Related works (the paper a dataset supplements, the data it was derived from): given with
//! `lodge add --related "RELATION ID"` or read from a `.zenodo.json`'s `related_identifiers`,
//! shown by `lodge show`, part of the content key, and sent to InvenioRDM as
//! `related_identifiers` and to DataCite as `relatedIdentifiers`. One that cannot be sent is
//! a metadata problem naming the flag, and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn related_works_given_on_the_command_line_are_shown_keyed_and_reach_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = add_titled_with(&lab, &folder, "Cores", &[]);
    assert!(plain.status.success(), "{}", text(&plain));
    let related = [
        "--related",
        "isSupplementTo https://doi.org/10.1234/Paper.7",
        "--related",
        "IsDerivedFrom https://example.org/raw-cores",
    ];
    let out = add_titled_with(&lab, &folder, "Cores", &related);
    assert!(out.status.success(), "{}", text(&out));
    assert_ne!(
        key_in(&text(&out)),
        key_in(&text(&plain)),
        "related works are part of the key"
    );
    // The same works spelt otherwise key the same.
    let again = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--related",
            "IsSupplementTo doi:10.1234/paper.7",
            "--related",
            "isderivedfrom  https://example.org/raw-cores",
        ],
    );
    assert_eq!(key_in(&text(&again)), key_in(&text(&out)));
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "related      IsSupplementTo 10.1234/paper.7",
            "             IsDerivedFrom https://example.org/raw-cores",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["related_identifiers"],
        json!([
            {"identifier": "10.1234/paper.7", "scheme": "doi",
             "relation_type": {"id": "issupplementto"}},
            {"identifier": "https://example.org/raw-cores", "scheme": "url",
             "relation_type": {"id": "isderivedfrom"}},
        ])
    );
    assert_eq!(
        attributes["relatedIdentifiers"],
        json!([
            {"relatedIdentifier": "10.1234/paper.7", "relatedIdentifierType": "DOI",
             "relationType": "IsSupplementTo"},
            {"relatedIdentifier": "https://example.org/raw-cores",
             "relatedIdentifierType": "URL", "relationType": "IsDerivedFrom"},
        ])
    );
}

/// A `--related` without both parts is refused before anything is added; a relation type
/// DataCite does not have, or an identifier that is neither a DOI nor a URL, is a metadata
/// problem naming the flag, and a deposit sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_related_work_that_cannot_be_sent_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(&lab, &folder, "Cores", &["--related", "IsSupplementTo"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "--related 'IsSupplementTo' is not a related work: write the relation, then the DOI \
           or URL, e.g. \"IsSupplementTo 10.1234/abc\"",
        ],
    );
    assert!(!lab.path("lodge.db").exists(), "nothing added");

    let out = add_titled_with(
        &lab,
        &folder,
        "Cores",
        &[
            "--related",
            "IsSuplementTo 10.1234/abc",
            "--related",
            "Cites arXiv:2101.00001",
        ],
    );
    let said = text(&out);
    assert_all(
        &said,
        &[
            "related[0]: 'IsSuplementTo' is not a DataCite relation type: did you mean \
             IsSupplementTo? (--related \"IsSupplementTo 10.1234/abc\")",
            "related[1]: 'arXiv:2101.00001' is neither a DOI (10.1234/abc) nor an http(s) URL",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s `related_identifiers` are read into the dataset's related works, and
/// no longer named among what the file gives that Lodge does not send.
#[test]
fn zenodo_json_related_identifiers_prefill_the_related_works() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "with-zenodo",
        r#""related_identifiers": [
             {"identifier": "10.1234/paper", "relation": "isSupplementTo", "scheme": "doi"}
           ],
           "grants": [{"id": "10.13039/501100004963::12345"}]"#,
    );
    assert_all(
        &said,
        &[
            "also gives grants whose funder Lodge cannot name (10.13039/501100004963::12345), \
           which Lodge does not send",
        ],
    );
    assert!(!said.contains("related_identifiers"), "{said}");
    assert_all(&shown, &["related      IsSupplementTo 10.1234/paper"]);
}

/// A `CITATION.cff`'s references are the works the dataset references: each with a DOI or
/// URL is read as a related work `References`; one with neither is named as not sent, with
/// how to give it.
#[test]
fn citation_cff_references_prefill_related_works_and_one_without_an_identifier_is_named() {
    let lab = Lab::new();
    let cff = "cff-version: 1.2.0\nmessage: Cite this dataset\ntitle: Cores\n\
               authors:\n  - family-names: Curie\n    given-names: Marie\n\
               date-released: 2026-01-05\npublisher: Lab\n\
               references:\n\
               \x20 - type: article\n    title: The method\n    doi: https://doi.org/10.1234/Method\n\
               \x20 - type: book\n    title: A handbook\n";
    let folder = lab.folder(
        "referencing",
        &[
            ("cores.csv", b"depth,c\n1,2\n"),
            ("CITATION.cff", cff.as_bytes()),
        ],
    );
    let (added, said) = lodge_said(&lab, &["add", folder.to_str().unwrap()]);
    assert!(added, "{said}");
    assert_all(
        &said,
        &[
            "references[1] ('A handbook') of ",
            "CITATION.cff has no doi or url, so it is not sent as a related work: give the work's DOI or address with --related",
        ],
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["related      References 10.1234/method"]);
}

/// A dataset added before its `.zenodo.json` gave related works keeps the ones it has (none):
/// taking them from the file would give a moved folder another key, and a second deposit.
/// Adding the folder again names them, and `--related` gives them.
#[test]
fn related_works_a_citation_file_gives_later_are_named_not_taken() {
    let lab = Lab::new();
    let folder = lab.folder("later", &[("cores.csv", b"depth,c\n1,2\n")]);
    let out = add_titled_with(&lab, &folder, "Cores", &[]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(
        folder.join(".zenodo.json"),
        r#"{"title": "Cores", "related_identifiers": [
              {"identifier": "10.1234/paper", "relation": "isSupplementTo"}]}"#,
    )
    .unwrap();
    let (added, said) = lodge_said(&lab, &["add", folder.to_str().unwrap()]);
    assert!(added, "{said}");
    assert_all(&said, &["differs from the dataset in its related works"]);
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert!(!shown.contains("related "), "{shown}");

    let related = ["--related", "IsSupplementTo 10.1234/paper"];
    let (added, said) = lodge_said(
        &lab,
        &[&["add", folder.to_str().unwrap()][..], &related].concat(),
    );
    assert!(added, "{said}");
    assert!(!said.contains("differs from the dataset"), "{said}");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["related      IsSupplementTo 10.1234/paper"]);

    // `--related ""` takes them away again.
    let (added, said) = lodge_said(&lab, &["add", folder.to_str().unwrap(), "--related", ""]);
    assert!(added, "{said}");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert!(!shown.contains("related "), "{shown}");
}
