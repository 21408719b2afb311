//! Who may read a dataset's files once deposited: open (the default), restricted, or
//! embargoed until a date. Chosen on the command line or read from a `.zenodo.json`; sent
//! to InvenioRDM as its `access`, to DataCite as an access right; never dropped without a
//! word, since a dataset published openly by mistake cannot be taken back.

mod support;

use lodge::sandbox::FaultConfig;

use serde_json::{Value, json};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_embargo_given_on_the_command_line_is_shown_and_reaches_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let out = add_titled_with(&lab, &folder, "Cores", &["--embargo-until", "2099-06-30"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_all(&text(&out), &["files: embargoed until 2099-06-30"]);
    let shown = lodge_in(&lab).args(["show", "1"]).output().unwrap();
    assert_all(&text(&shown), &["files        embargoed until 2099-06-30"]);

    // The local sandbox keeps files but keeps nobody from them: said before depositing.
    let mut cmd = lodge_in(&lab);
    cmd.args([
        "deposit",
        "--all",
        "--dry-run",
        "--target",
        &sandbox.target_url(),
    ]);
    let out = run(cmd).await;
    assert_all(
        &text(&out),
        &[
            "note     ds001: its files are to be embargoed until 2099-06-30, but Local sandbox at \
           127.0.0.1:",
        ],
    );
    assert_all(
        &text(&out),
        &["does not enforce that: there they are as readable as the \
           store's own permissions make them"],
    );

    let both = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert!(!both.said.contains("does not enforce"), "{}", both.said);
    assert_eq!(
        both.record["access"],
        json!({"record": "public", "files": "restricted",
               "embargo": {"active": true, "until": "2099-06-30"}})
    );
    let attributes = &both.attributes;
    assert_eq!(
        attributes["rightsList"],
        json!([{"rights": "embargoed access",
                "rightsUri": "http://purl.org/coar/access_right/c_f1cf"}])
    );
    assert_eq!(
        attributes["dates"],
        json!([{"date": "2099-06-30", "dateType": "Available"}])
    );
}

/// Flags that cannot both hold are refused before anything is added; a date that is no
/// date in a `.zenodo.json` is a metadata problem naming the flag that fixes it, and no
/// deposit is made.
#[test]
fn access_flags_that_disagree_are_refused_and_a_bad_date_stops_the_deposit() {
    let lab = Lab::new();
    let folder = lab.numbered_folder(1);
    for (flags, said) in [
        (
            &["--access", "embargoed"][..],
            "--access embargoed needs the day the files open: add --embargo-until YYYY-MM-DD",
        ),
        (
            &["--access", "restricted", "--embargo-until", "2099-01-01"][..],
            "--embargo-until is for an embargo, and --access says restricted",
        ),
    ] {
        let out = add_titled_with(&lab, &folder, "T", flags);
        assert!(!out.status.success(), "{flags:?}: {}", text(&out));
        assert_all(&text(&out), &[said]);
    }
    assert!(
        !lab.path("lodge.db").exists() || lab.store("lodge.db").datasets().unwrap().is_empty(),
        "nothing added"
    );

    let (said, _) = added_with_zenodo_json(
        &lab,
        "cores",
        r#""access_right": "embargoed", "embargo_date": "30.06.2099""#,
    );
    assert_all(
        &said,
        &[
            "access.until: '30.06.2099' is not a date",
            "YYYY-MM-DD",
            "--embargo-until",
        ],
    );
    let out = lodge_in(&lab)
        .args([
            "deposit",
            "--all",
            "--dry-run",
            "--target",
            "sandbox+http://127.0.0.1:9",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    assert_all(&text(&out), &["access.until"]);
}

/// A day that is not in the calendar, or not written YYYY-MM-DD, is refused as the flag is
/// read, naming the flag and the form: nothing is added, and a dataset added before keeps
/// its embargo.
#[test]
fn an_embargo_end_that_is_no_calendar_day_is_refused_and_nothing_is_added() {
    let lab = Lab::new();
    let folder = lab.numbered_folder(1);
    added_titled_with(&lab, &folder, "Cores", &["--embargo-until", "2099-06-30"]);
    for day in ["2027-13-01", "2027-02-29", "30.06.2099", "2027-6-30", ""] {
        let out = add_titled_with(&lab, &folder, "Cores", &["--embargo-until", day]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{day}: {said}");
        assert_all(
            &said,
            &[
                "--embargo-until",
                &format!("'{day}' is not a date"),
                "YYYY-MM-DD, e.g. 2027-06-30",
            ],
        );
    }
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["files        embargoed until 2099-06-30"]);
}

/// An embargo whose end has come is a valid date, so the dataset is added (as the metadata
/// check takes it), but `add` and `show` warn that its files would be open at once and that
/// Zenodo and InvenioRDM refuse it, naming the day and the fix.
#[test]
fn an_embargo_whose_end_has_come_is_added_with_a_warning_naming_the_day_and_the_fix() {
    let lab = Lab::new();
    let folder = lab.numbered_folder(1);
    let said = added_titled_with(&lab, &folder, "Cores", &["--embargo-until", "2020-01-01"]);
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    for text in [&said, &shown] {
        assert_all(
            text,
            &[
                "warning: the embargo ends on 2020-01-01, which has come",
                "the files would be open at once",
                "Zenodo and InvenioRDM refuse such an embargo",
                "--embargo-until, or --access open",
            ],
        );
    }
    let said = added_titled_with(&lab, &folder, "Cores", &["--embargo-until", "2099-06-30"]);
    assert!(!said.contains("warning"), "{said}");
}

/// A `CITATION.cff` says nothing of who may read the files: a `.zenodo.json` beside it that
/// keeps them under embargo is obeyed, so they are not published openly because the other
/// file was read; one whose access cannot be read keeps them restricted, saying why.
#[test]
fn an_embargo_in_a_zenodo_json_beside_a_citation_cff_is_kept() {
    let lab = Lab::new();
    let cff = "cff-version: 1.2.0\ntitle: Embargoed cores\nauthors:\n  - family-names: \
               Curie\n    given-names: Marie\ndate-released: 2026-01-05\n";
    let zenodo = json!({"access_right": "embargoed", "embargo_date": "2099-01-01"});
    let folder = lab.folder(
        "both",
        &[
            ("data.csv", b"id\n1\n"),
            ("CITATION.cff", cff.as_bytes()),
            (".zenodo.json", zenodo.to_string().as_bytes()),
        ],
    );
    let add = |folder: &std::path::Path| {
        lodge_in(&lab)
            .arg("add")
            .arg(folder)
            .args(["--publisher", "Lab"])
            .output()
            .unwrap()
    };
    let out = add(&folder);
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "files: embargoed until 2099-01-01",
            ".zenodo.json was read only for who may read the files",
        ],
    );
    let shown = lodge_in(&lab).args(["show", "1"]).output().unwrap();
    assert_all(
        &text(&shown),
        &[
            "title        Embargoed cores",
            "files        embargoed until 2099-01-01",
        ],
    );

    let broken = lab.folder(
        "broken",
        &[
            ("data.csv", b"id\n2\n"),
            ("CITATION.cff", cff.as_bytes()),
            (".zenodo.json", br#"{"access_right": "embargoed""#),
        ],
    );
    // Its access cannot be read, so its files are kept from the public, saying why; the
    // citation file beside it still gives the metadata.
    let out = add(&broken);
    assert_all(
        &text(&out),
        &[
            &format!(
                "files restricted: {} says who may read them, and that could not be read",
                broken.join(".zenodo.json").display()
            ),
            "it is read for who may read the files (access_right, embargo_date)",
            "files: restricted",
        ],
    );
    assert!(
        !text(&out).contains("metadata incomplete"),
        "{}",
        text(&out)
    );
}

/// A `CITATION.cff` that cannot be read (a day no calendar has) leaves the metadata to be
/// filled in, but the embargo of the `.zenodo.json` beside it is kept all the same: the
/// files are never open because the other file could not be read. Fixed and added again,
/// the citation file fills in the rest and the embargo stands.
#[test]
fn an_embargo_in_a_zenodo_json_is_kept_when_the_citation_cff_beside_it_cannot_be_read() {
    let lab = Lab::new();
    let cff = |date: &str| {
        format!(
            "cff-version: 1.2.0\ntitle: Weather 2026\nauthors:\n  - family-names: \
             Curie\n    given-names: Marie\ndate-released: {date}\n"
        )
    };
    let zenodo = json!({"access_right": "embargoed", "embargo_date": "2099-01-01"});
    let folder = lab.folder(
        "weather",
        &[
            ("data.csv", b"id\n1\n"),
            ("CITATION.cff", cff("2026-02-30").as_bytes()),
            (".zenodo.json", zenodo.to_string().as_bytes()),
        ],
    );
    let add = || {
        lodge_in(&lab)
            .arg("add")
            .arg(&folder)
            .args(["--publisher", "Lab"])
            .output()
            .unwrap()
    };
    let out = add();
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "date-released '2026-02-30' is not a calendar date",
            &format!(
                "files embargoed until 2099-01-01, as {} says",
                folder.join(".zenodo.json").display()
            ),
        ],
    );
    let shown = text(&lodge_in(&lab).args(["show", "1"]).output().unwrap());
    assert!(
        shown.contains("files        embargoed until 2099-01-01"),
        "{shown}"
    );

    std::fs::write(folder.join("CITATION.cff"), cff("2026-02-03")).unwrap();
    let out = add();
    assert!(out.status.success(), "{}", text(&out));
    let shown = text(&lodge_in(&lab).args(["show", "1"]).output().unwrap());
    assert_all(
        &shown,
        &[
            "title        Weather 2026",
            "files        embargoed until 2099-01-01",
        ],
    );
}

/// A `.zenodo.json` that keeps its files closed prefills restricted files, and what it
/// gives that Lodge does not send (its notes) is named at once; its EC grant is funding.
#[test]
fn a_zenodo_json_that_restricts_its_files_prefills_the_restriction_and_names_what_is_not_sent() {
    let lab = Lab::new();
    let zenodo: Value = json!({
        "title": "Closed cores",
        "creators": [{"name": "Curie, Marie"}],
        "access_right": "closed",
        "notes": "Kept at 4 degrees",
        "grants": [{"id": "777541"}],
    });
    let folder = lab.folder(
        "closed",
        &[
            ("data.csv", b"id\n1\n"),
            (".zenodo.json", zenodo.to_string().as_bytes()),
        ],
    );
    let out = lodge_in(&lab)
        .arg("add")
        .arg(&folder)
        .args(["--publisher", "Lab", "--year", "2026"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &[
            "files: restricted",
            "also gives notes, which Lodge does not send",
        ],
    );
    let dataset = &lab.store("lodge.db").datasets().unwrap()[0];
    assert_eq!(
        dataset.metadata.access,
        lodge::content::FileAccess::Restricted
    );

    // A flag chooses otherwise.
    let out = lodge_in(&lab)
        .arg("add")
        .arg(&folder)
        .args(["--access", "open"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let dataset = &lab.store("lodge.db").datasets().unwrap()[0];
    assert!(dataset.metadata.access.is_open());
    // Added again without it, the choice stays, and the file's other word is named.
    let out = lodge_in(&lab).arg("add").arg(&folder).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_all(
        &text(&out),
        &["differs from the dataset in its file access; the dataset's stay"],
    );
    let dataset = &lab.store("lodge.db").datasets().unwrap()[0];
    assert!(dataset.metadata.access.is_open(), "open was chosen");
}

/// A `.zenodo.json` that says who may read the files in a way Lodge cannot read (a closed
/// record given an embargo date) keeps them from the public: the dataset is added with its
/// files restricted, saying why and how to choose otherwise. Open is never the guess.
#[test]
fn a_zenodo_json_whose_access_cannot_be_read_keeps_the_files_from_the_public() {
    let lab = Lab::new();
    let (said, shown) = added_with_zenodo_json(
        &lab,
        "closed",
        r#""access_right": "closed", "embargo_date": "2020-01-01""#,
    );
    assert_all(
        &said,
        &[
            "files restricted: ",
            ".zenodo.json says who may read them, and that could not be read (embargo_date is \
             given but access_right is closed",
            "they are kept from the public until you say otherwise (--access open",
            // No flags were given: nothing "given here" fills the metadata.
            "The folder is added without its metadata: give it with --title, --creator",
        ],
    );
    assert_all(&shown, &["files        restricted"]);
}

/// Beside a `CITATION.cff`, a `.zenodo.json` whose access cannot be read costs the
/// citation file nothing: its metadata is read, and the files are kept restricted, saying
/// why.
#[test]
fn a_citation_cff_is_read_beside_a_zenodo_json_whose_access_cannot_be_read() {
    let lab = Lab::new();
    let cff = "cff-version: 1.2.0\ntitle: Ice cores\nmessage: cite\nauthors:\n  - \
               family-names: Doe\n    given-names: Jane\ndate-released: 2026-01-05\n";
    let folder = lab.folder(
        "ice",
        &[
            ("cores.csv", b"depth,c\n1,2\n".as_slice()),
            ("CITATION.cff", cff.as_bytes()),
            (".zenodo.json", br#"{"access_right": "private"}"#.as_slice()),
        ],
    );
    let (added, said) = lodge_said(&lab, &["add", folder.to_str().unwrap()]);
    assert!(added, "{said}");
    assert_all(
        &said,
        &[
            "metadata prefilled from",
            "files restricted: ",
            "could not be read (access_right 'private' is not one of",
        ],
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &["Ice cores", "Doe, Jane", "files        restricted"],
    );
}
