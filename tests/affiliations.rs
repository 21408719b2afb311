//! Affiliations with their ROR: a creator given with `lodge add --creator "Curie, Marie;
//! affiliation=Sorbonne University; ror=02en5vm52"` (a contributor with `--contributor`
//! alike) keys its affiliation's ROR as its address, shows it, and sends it: to DataCite as
//! the affiliation's identifier, to InvenioRDM as the site's affiliations entry where the
//! site lists the organisation, by name where it does not. A person may have several
//! affiliations, each `affiliation=NAME` followed by its `ror=ID`, kept and sent in that
//! order. A ROR that is not one (a typo its check digits catch) or that has no affiliation
//! name beside it is refused before anything is queued, naming which affiliation has it.
//! An organisation credited as a creator or contributor may carry its own ROR
//! (`"CERN; ror=01ggx4157"`), sent as its identifier.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_affiliation_ror_is_keyed_shown_and_linked_at_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let named = [
        "--creator",
        "Weber, Anna; affiliation=Sorbonne University",
        "--contributor",
        "Soil Lab; role=HostingInstitution; affiliation=MIT",
    ];
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &named));
    let with_ror = [
        "--creator",
        "Weber, Anna; affiliation=Sorbonne University; ror=https://ror.org/02EN5VM52",
        // A ROR the emulated site does not list (MIT's): sent by name.
        "--contributor",
        "Soil Lab; role=HostingInstitution; affiliation=MIT; ror=042nb2s44",
    ];
    let keyed = key_in(&added_titled_with(&lab, &folder, "Cores", &with_ror));
    assert_ne!(keyed, plain, "an affiliation's ROR is part of the key");
    let respelt = [
        "--creator",
        "Weber, Anna; affiliation=Sorbonne University; ror=02en5vm52",
        "--contributor",
        "Soil Lab; role=HostingInstitution; affiliation=MIT; ror=ror.org/042nb2s44/",
    ];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &respelt)),
        keyed,
        "one ROR, however written"
    );
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "Weber, Anna; affiliation=Sorbonne University; ror=https://ror.org/02en5vm52",
            "Soil Lab; role=HostingInstitution; affiliation=MIT; ror=https://ror.org/042nb2s44",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    // InvenioRDM: the listed organisation by its vocabulary id (the record answers its
    // name from the vocabulary), the unlisted one by the name given.
    let m = &record["metadata"];
    assert_eq!(
        m["creators"][1]["affiliations"],
        json!([{"id": "02en5vm52", "name": "Sorbonne University"}])
    );
    assert_eq!(
        m["contributors"][0]["affiliations"],
        json!([{"name": "MIT"}])
    );
    assert!(m["creators"][0].get("affiliations").is_none(), "{m}");
    // DataCite: both with their ROR.
    assert_eq!(
        attributes["creators"][1]["affiliation"],
        json!([{
            "name": "Sorbonne University",
            "affiliationIdentifier": "https://ror.org/02en5vm52",
            "affiliationIdentifierScheme": "ROR",
            "schemeUri": "https://ror.org",
        }])
    );
    assert_eq!(
        attributes["contributors"][0]["affiliation"][0]["affiliationIdentifier"],
        "https://ror.org/042nb2s44"
    );
}

/// A ROR whose check digits do not match (a typo), one with no affiliation name beside it,
/// and text that is no ROR at all are metadata problems naming the fix, and a deposit sends
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mistyped_or_nameless_affiliation_ror_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let flags = [
        // The last check digit mistyped: a ROR's shape, not a ROR.
        "--creator",
        "Weber, Anna; affiliation=Sorbonne; ror=02en5vm53",
        "--creator",
        "Roy, Ana; ror=02en5vm52",
        "--contributor",
        "Soil Lab; role=HostingInstitution; affiliation=Lab; ror=Soil Lab",
    ];
    let said = text(&add_titled_with(&lab, &folder, "Cores", &flags));
    assert_all(
        &said,
        &[
            "creators[1].affiliation_ror: '02en5vm53' is not a ROR id: its last two digits do \
             not match the rest, so a character is mistyped",
            "(--creator \"Family, Given; affiliation=NAME; ror=https://ror.org/02en5vm52\")",
            "creators[2].affiliation_ror: https://ror.org/02en5vm52 is given without the \
             affiliation's name: add it (affiliation=NAME)",
            "'Soil Lab' is not a ROR id",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A creator with two affiliations and their RORs and a third without: keyed in the order
/// given (the first one, with it, keyed as before there could be several), shown as they
/// are written, and sent in that order to both targets, each with its own ROR.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn several_affiliations_are_keyed_in_order_shown_and_sent_each_with_its_ror() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let three = "Weber, Anna; affiliation=Sorbonne University; ror=02en5vm52; \
                 affiliation=ETH Zurich; ror=05A28RW58; affiliation=Soil Institute";
    let first_only = "Weber, Anna; affiliation=Sorbonne University; ror=02en5vm52";
    let one = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--creator", first_only],
    ));
    let reordered = "Weber, Anna; affiliation=ETH Zurich; ror=05a28rw58; \
                     affiliation=Sorbonne University; ror=02en5vm52; affiliation=Soil Institute";
    let other_order = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--creator", reordered],
    ));
    let keyed = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--creator", three],
    ));
    assert_ne!(keyed, one, "the other affiliations are part of the key");
    assert_ne!(keyed, other_order, "and so is their order");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "Weber, Anna; affiliation=Sorbonne University; ror=https://ror.org/02en5vm52; \
           affiliation=ETH Zurich; ror=https://ror.org/05a28rw58; affiliation=Soil Institute",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["creators"][1]["affiliations"],
        json!([
            {"id": "02en5vm52", "name": "Sorbonne University"},
            {"id": "05a28rw58", "name": "ETH Zurich"},
            {"name": "Soil Institute"},
        ])
    );
    let ror = |id: &str| {
        json!({
            "affiliationIdentifier": format!("https://ror.org/{id}"),
            "affiliationIdentifierScheme": "ROR",
            "schemeUri": "https://ror.org",
        })
    };
    let mut sorbonne = ror("02en5vm52");
    sorbonne["name"] = json!("Sorbonne University");
    let mut eth = ror("05a28rw58");
    eth["name"] = json!("ETH Zurich");
    assert_eq!(
        attributes["creators"][1]["affiliation"],
        json!([sorbonne, eth, {"name": "Soil Institute"}])
    );
}

/// A mistyped ROR of a second affiliation is named with the place of that affiliation, two
/// RORs after one affiliation are refused as a text that cannot be read, and a deposit
/// sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mistyped_ror_of_a_second_affiliation_is_named_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let two_rors = [
        "--creator",
        "Weber, Anna; affiliation=Sorbonne; ror=02en5vm52; ror=05a28rw58",
    ];
    let refused = add_titled_with(&lab, &folder, "Cores", &two_rors);
    assert!(!refused.status.success());
    assert_all(
        &text(&refused),
        &[
            "two RORs for the affiliation 'Sorbonne': write each affiliation=NAME before its own \
           ror=ID",
        ],
    );
    let mistyped = [
        "--creator",
        "Weber, Anna; affiliation=Sorbonne; ror=02en5vm52; affiliation=ETH Zurich; ror=05a28rw59",
    ];
    let said = text(&add_titled_with(&lab, &folder, "Cores", &mistyped));
    assert_all(
        &said,
        &[
            "creators[1].more_affiliations[0].ror: '05a28rw59' is not a ROR id: its last two \
           digits do not match the rest",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// An organisation credited as a creator, and one as a contributor, each with its own ROR:
/// shown as written, and sent as the organisation's identifier, to InvenioRDM in its
/// `person_or_org` and to DataCite as its `nameIdentifiers`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_organisations_own_ror_is_sent_as_its_identifier_to_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let flags = [
        "--creator",
        "European Organization for Nuclear Research; ror=01GGX4157",
        "--contributor",
        "ETH Zurich; role=HostingInstitution; ror=https://ror.org/05a28rw58",
    ];
    let said = text(&add_titled_with(&lab, &folder, "Cores", &flags));
    assert!(!said.contains("incomplete"), "{said}");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "European Organization for Nuclear Research; ror=https://ror.org/01ggx4157",
            "ETH Zurich; role=HostingInstitution; ror=https://ror.org/05a28rw58",
        ],
    );

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    let m = &record["metadata"];
    assert_eq!(
        m["creators"][1]["person_or_org"]["identifiers"],
        json!([{"scheme": "ror", "identifier": "01ggx4157"}])
    );
    assert_eq!(
        m["contributors"][0]["person_or_org"]["identifiers"],
        json!([{"scheme": "ror", "identifier": "05a28rw58"}])
    );
    assert_eq!(attributes["creators"][1]["nameType"], "Organizational");
    assert_eq!(
        attributes["creators"][1]["nameIdentifiers"],
        json!([{
            "nameIdentifier": "https://ror.org/01ggx4157",
            "nameIdentifierScheme": "ROR",
            "schemeUri": "https://ror.org",
        }])
    );
    assert_eq!(
        attributes["contributors"][0]["nameIdentifiers"][0]["nameIdentifier"],
        "https://ror.org/05a28rw58"
    );
}

/// An organisation whose name has a comma ("University of California, Berkeley") stays an
/// organisation: a `CITATION.cff` entity (`name:`) is marked one, as is a creator given
/// with `type=organisation`; each is shown so, and sent whole, as an organisation's name,
/// not split into a person's family and given names. A person's `"Family, Given"` is not
/// changed by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_organisation_whose_name_has_a_comma_is_sent_as_an_organisation() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let cff = "cff-version: 1.2.0\ntitle: Cores\nauthors:\n  - family-names: Curie\n    \
               given-names: Marie\n  - name: \"University of California, Berkeley\"\n";
    let folder = lab.folder(
        "cores",
        &[("data.csv", b"1,2\n"), ("CITATION.cff", cff.as_bytes())],
    );
    let folder = folder.display().to_string();
    let (ok, said) = lodge_said(
        &lab,
        &["add", &folder, "--publisher", "Lab", "--year", "2026"],
    );
    assert!(ok, "{said}");
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(
        &shown,
        &[
            "University of California, Berkeley; type=organisation",
            "Curie, Marie",
        ],
    );
    assert!(!shown.contains("Curie, Marie; type="), "{shown}");

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    let m = &record["metadata"];
    assert_eq!(
        m["creators"][1]["person_or_org"],
        json!({"type": "organizational", "name": "University of California, Berkeley"})
    );
    assert_eq!(m["creators"][0]["person_or_org"]["family_name"], "Curie");
    assert_eq!(attributes["creators"][1]["nameType"], "Organizational");
    assert_eq!(
        attributes["creators"][1]["name"],
        "University of California, Berkeley"
    );
    assert!(attributes["creators"][1].get("familyName").is_none());
    assert_eq!(attributes["creators"][0]["nameType"], "Personal");

    // Given on the command line, and a type that is none is refused, naming the fix.
    let other = lab.numbered_folder(2);
    let flags = [
        "--creator",
        "Max Planck Institute for Chemistry, Mainz; type=organization",
    ];
    added_titled_with(&lab, &other, "Other cores", &flags);
    let (_, shown) = lodge_said(&lab, &["show", "2"]);
    assert!(
        shown.contains("Max Planck Institute for Chemistry, Mainz; type=organisation"),
        "{shown}"
    );
    // Without it, a name with a comma and an organisation's word gets a note with the flag.
    let said = added_titled_with(
        &lab,
        &other,
        "Other cores",
        &["--creator", "University of Oslo, Norway"],
    );
    assert!(
        said.contains(
            "the creator 'University of Oslo, Norway' has a comma, so repositories take it as \
             a person (family name 'University of Oslo', given name 'Norway'); for an \
             organisation whose name has a comma, say so: --creator 'University of Oslo, \
             Norway; type=organisation'"
        ),
        "{said}"
    );
    let third = lab.numbered_folder(3);
    let out = add_titled_with(&lab, &third, "Third", &["--creator", "Lab, X; type=team"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("type=team is not a creator's type: write type=organisation"),
        "{}",
        text(&out)
    );
}
