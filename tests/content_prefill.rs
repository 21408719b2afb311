//! Prefilling metadata from CITATION.cff or .zenodo.json found in the dataset folder.

mod support;

use std::fs;

use lodge::content::{
    Affiliation, ContentError, Creator, HashProgress, NoHashCache, metadata_from_folder,
    prepare_dataset,
};

const CFF: &str = r#"
cff-version: 1.2.0
message: "If you use this dataset, please cite it as below."
type: dataset
title: "Soil cores from the Black Forest"
abstract: "Carbon content of 40 soil cores."
authors:
  - family-names: Curie
    given-names: Marie
    orcid: "https://orcid.org/0000-0002-1825-0097"
    affiliation: "University of Paris"
  - name: "The Soil Consortium"
date-released: 2024-05-31
license: CC-BY-4.0
keywords:
  - soil
  - carbon
version: 1.2.0
"#;

const ZENODO: &str = r#"{
  "title": "Soil cores",
  "upload_type": "software",
  "description": "<p>Cores.</p>",
  "creators": [{"name": "Curie, Marie", "orcid": "0000-0002-1825-0097", "affiliation": "Paris"}],
  "publication_date": "2023-01-15",
  "license": {"id": "cc-by-4.0"},
  "keywords": ["soil"],
  "version": "v2"
}"#;

/// `lodge add FOLDER --publisher Lab` in `lab`, which must succeed; what it printed.
fn added_with_a_publisher(lab: &support::Lab, folder: &std::path::Path) -> String {
    let out = support::lodge_in(lab)
        .arg("add")
        .arg(folder)
        .args(["--publisher", "Lab"])
        .output()
        .unwrap();
    let said = support::text(&out);
    assert!(out.status.success(), "{said}");
    said
}

#[test]
fn citation_cff_fills_title_authors_year_license_keywords_and_version() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("CITATION.cff"), CFF).unwrap();
    let (m, used) = metadata_from_folder(dir.path()).unwrap().unwrap();
    assert_eq!(used, dir.path().join("CITATION.cff"));
    assert_eq!(m.title, "Soil cores from the Black Forest");
    assert_eq!(
        m.description.as_deref(),
        Some("Carbon content of 40 soil cores.")
    );
    assert_eq!(
        m.creators,
        vec![
            Creator {
                name: "Curie, Marie".into(),
                orcid: Some("https://orcid.org/0000-0002-1825-0097".into()),
                ror: None,
                affiliations: vec![Affiliation::named("University of Paris")],
                organisation: false,
            },
            Creator::named("The Soil Consortium"),
        ]
    );
    assert_eq!(m.publication_year, Some(2024));
    assert_eq!(m.license.as_deref(), Some("CC-BY-4.0"));
    assert_eq!(m.keywords, vec!["soil", "carbon"]);
    assert_eq!(m.version.as_deref(), Some("1.2.0"));
    assert_eq!(m.resource_type, "Dataset");
    // CFF has no publisher: it is left for the person to fill in.
    let fields: Vec<String> = m.problems().into_iter().map(|p| p.field).collect();
    assert_eq!(fields, vec!["publisher"]);
}

#[test]
fn zenodo_json_fills_metadata_when_there_is_no_citation_cff() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".zenodo.json"), ZENODO).unwrap();
    let (m, used) = metadata_from_folder(dir.path()).unwrap().unwrap();
    assert_eq!(used, dir.path().join(".zenodo.json"));
    assert_eq!(m.title, "Soil cores");
    assert_eq!(m.resource_type, "Software");
    assert_eq!(m.creators[0].name, "Curie, Marie");
    assert_eq!(m.creators[0].affiliations, [Affiliation::named("Paris")]);
    assert_eq!(m.publication_year, Some(2023));
    assert_eq!(m.license.as_deref(), Some("cc-by-4.0"));
    assert_eq!(m.keywords, vec!["soil"]);
    assert_eq!(m.version.as_deref(), Some("v2"));
    assert_eq!(m.description.as_deref(), Some("<p>Cores.</p>"));
}

#[test]
fn zenodo_license_may_be_a_plain_string() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join(".zenodo.json"),
        r#"{"title": "T", "license": "MIT", "upload_type": "dataset"}"#,
    )
    .unwrap();
    let (m, _) = metadata_from_folder(dir.path()).unwrap().unwrap();
    assert_eq!(m.license.as_deref(), Some("MIT"));
    assert_eq!(m.resource_type, "Dataset");
}

#[test]
fn citation_cff_is_preferred_over_zenodo_json() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("CITATION.cff"), CFF).unwrap();
    fs::write(dir.path().join(".zenodo.json"), ZENODO).unwrap();
    let (m, used) = metadata_from_folder(dir.path()).unwrap().unwrap();
    assert!(used.ends_with("CITATION.cff"));
    assert_eq!(m.title, "Soil cores from the Black Forest");
}

#[test]
fn a_folder_without_citation_files_prefills_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("data.csv"), "1").unwrap();
    assert!(metadata_from_folder(dir.path()).unwrap().is_none());
}

#[test]
fn malformed_citation_files_are_errors_naming_the_file() {
    for (name, text) in [
        ("CITATION.cff", "title: [unclosed\n"),
        ("CITATION.cff", "authors: Marie Curie\n"),
        ("CITATION.cff", "title: T\ndate-released: someday\n"),
        (".zenodo.json", "{\"title\": \"T\",}"),
        (".zenodo.json", "{\"creators\": \"Marie\"}"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(name), text).unwrap();
        let err = metadata_from_folder(dir.path()).unwrap_err();
        assert!(
            matches!(err, ContentError::BadCitation { .. }),
            "{text}: {err:?}"
        );
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn citation_files_stay_in_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("CITATION.cff"), CFF).unwrap();
    fs::write(dir.path().join(".zenodo.json"), ZENODO).unwrap();
    fs::write(dir.path().join("data.csv"), "1").unwrap();
    let (m, _) = metadata_from_folder(dir.path()).unwrap().unwrap();
    let p = prepare_dataset(dir.path(), &m, &NoHashCache, &|_: HashProgress| {}).unwrap();
    let paths: Vec<&str> = p
        .document
        .manifest
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert_eq!(paths, vec![".zenodo.json", "CITATION.cff", "data.csv"]);
}

/// A `CITATION.cff` giving a list of licenses is a choice of them: adding it says that
/// repositories get it as text, and suggests none of them alone (which would drop the rest).
#[test]
fn a_list_of_licenses_is_said_to_be_text_for_repositories_and_none_is_suggested_alone() {
    let lab = support::Lab::new();
    let cff = CFF.replace("license: CC-BY-4.0", "license:\n  - MIT\n  - Apache-2.0");
    let folder = lab.folder(
        "dual",
        &[("CITATION.cff", cff.as_bytes()), ("a.csv", b"1\n")],
    );
    let said = added_with_a_publisher(&lab, &folder);
    support::assert_all(
        &said,
        &[
            "the license 'MIT OR Apache-2.0' names more than one license, so repositories get it \
           as text only",
        ],
    );
    assert!(!said.contains("did you mean"), "{said}");
}

/// A citation file that gives a DOI may be one of a dataset deposited before Lodge: adding
/// it says that a deposit would make a second record with a DOI of its own, and names what
/// else the file gives that no deposit carries.
#[test]
fn adding_a_folder_whose_citation_file_gives_a_doi_warns_of_a_second_record() {
    let lab = support::Lab::new();
    let cff =
        format!("{CFF}doi: 10.5281/zenodo.4242\nreferences:\n  - type: book\n    title: A book\n");
    let folder = lab.folder(
        "cited",
        &[("CITATION.cff", cff.as_bytes()), ("a.csv", b"1\n")],
    );
    support::assert_all(
        &added_with_a_publisher(&lab, &folder),
        &[
            "CITATION.cff gives the DOI 10.5281/zenodo.4242: if that is this dataset's own, it \
             is deposited already, and a deposit makes a second record with a DOI of its own",
            "references[0] ('A book') of ",
            "CITATION.cff has no doi or url, so it is not sent as a related work: give the \
             work's DOI or address with --related \"References DOI-OR-URL\", repeating the \
             related works already read (--related replaces them)",
        ],
    );
}

/// A folder with both citation files prefills from `CITATION.cff`: adding it says the
/// `.zenodo.json` was read only for the files' access, and how to give what else only it says.
#[test]
fn adding_a_folder_with_citation_cff_and_zenodo_json_says_the_zenodo_json_was_read_only_for_access()
{
    let lab = support::Lab::new();
    let folder = lab.folder(
        "both",
        &[
            ("CITATION.cff", CFF.as_bytes()),
            (".zenodo.json", ZENODO.as_bytes()),
            ("a.csv", b"1\n"),
        ],
    );
    support::assert_all(
        &added_with_a_publisher(&lab, &folder),
        &[
            "metadata prefilled from",
            &format!(
                "note: {} was read only for who may read the files (access_right, \
                 embargo_date): with both files in a folder, Lodge reads CITATION.cff; give \
                 what else only .zenodo.json says with flags (--funding, --community",
                folder.join(".zenodo.json").display()
            ),
        ],
    );
}

/// A CFF author with only `given-names`, or only `family-names`, is sent as an organisation
/// of that name: adding the folder names the author and says how to make it a person or an
/// organisation.
#[test]
fn a_cff_author_with_only_given_or_only_family_names_is_named_with_how_to_make_it_a_person() {
    let lab = support::Lab::new();
    let cff = "title: T\nauthors:\n  - family-names: Curie\n    given-names: Marie\n  - \
               given-names: Solo\n  - family-names: Noether\ndate-released: 2024-05-31\n";
    let folder = lab.folder(
        "solo",
        &[("CITATION.cff", cff.as_bytes()), ("a.csv", b"1\n")],
    );
    let said = added_with_a_publisher(&lab, &folder);
    assert!(
        said.contains(&format!(
            "note: authors[1] of {} has given-names 'Solo' and no family-names, so it is sent \
             as an organisation named 'Solo': add its family-names for a person, or write \
             `name: Solo` for an organisation",
            folder.join("CITATION.cff").display()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "note: authors[2] of {} has family-names 'Noether' and no given-names, so it is \
             sent as an organisation named 'Noether': add its given-names for a person, or \
             write `name: Noether` for an organisation",
            folder.join("CITATION.cff").display()
        )),
        "{said}"
    );
    assert!(!said.contains("authors[0]"), "{said}");

    // Creators given by flag: the file's authors are not the dataset's, so not said of.
    let other = lab.folder(
        "solo-by-flag",
        &[("CITATION.cff", cff.as_bytes()), ("a.csv", b"1\n")],
    );
    let out = support::lodge_in(&lab)
        .arg("add")
        .arg(&other)
        .args(["--publisher", "Lab", "--creator", "Curie, Marie"])
        .output()
        .unwrap();
    let said = support::text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("metadata prefilled from"), "{said}");
    assert!(!said.contains("authors[1]"), "{said}");

    // Added again once the file has more: what it fills is said, its authors not (the
    // dataset's creators stay).
    fs::write(
        other.join("CITATION.cff"),
        format!("{cff}keywords:\n  - soil\n"),
    )
    .unwrap();
    let out = support::lodge_in(&lab)
        .arg("add")
        .arg(&other)
        .output()
        .unwrap();
    let said = support::text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("keywords filled in from"), "{said}");
    assert!(!said.contains("authors[1]"), "{said}");
}

/// `date-released: 2024-13-45` is no day of the calendar: the file's problem, named like a
/// date that is no date at all, not a year 2024 taken on trust.
#[test]
fn a_cff_date_released_that_is_no_calendar_date_is_a_problem_naming_it() {
    for date in ["2024-13-45", "2023-02-29", "2024-05"] {
        let dir = tempfile::tempdir().unwrap();
        let cff = format!("title: T\ndate-released: \"{date}\"\n");
        fs::write(dir.path().join("CITATION.cff"), cff).unwrap();
        let err = metadata_from_folder(dir.path()).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "date-released '{date}' is not a calendar date: write it like 2024-05-31"
            )),
            "{err}"
        );
    }
    // A year alone, and a day of the calendar, are still read as the year.
    for date in ["2024", "2024-02-29"] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("CITATION.cff"),
            format!("title: T\ndate-released: {date}\n"),
        )
        .unwrap();
        let (m, _) = metadata_from_folder(dir.path()).unwrap().unwrap();
        assert_eq!(m.publication_year, Some(2024), "{date}");
    }
}
