//! The language of a dataset's content: given with `lodge add --language en` (an ISO 639
//! code or an English name) or read from a `.zenodo.json`'s `language`, shown by `lodge
//! show` with its name, keyed as its ISO 639-3 code (so `en`, `eng` and `English` key the
//! same), and sent to DataCite as `language` (its two-letter code) and to InvenioRDM as
//! `languages` (its languages vocabulary's ISO 639-3 id). Text that names no language is a
//! metadata problem naming the language most likely meant, and nothing is deposited.

mod support;

use lodge::sandbox::FaultConfig;
use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_language_in_any_spelling_is_keyed_once_shown_and_reaches_invenio_and_datacite() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let plain = key_in(&added_titled_with(&lab, &folder, "Cores", &[]));
    let english = key_in(&added_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--language", "English"],
    ));
    assert_ne!(english, plain, "the language is part of the key");
    for spelt in ["en", "eng", " english ", "en-GB"] {
        let key = key_in(&added_titled_with(
            &lab,
            &folder,
            "Cores",
            &["--language", spelt],
        ));
        assert_eq!(key, english, "{spelt}");
    }
    let (_, shown) = lodge_said(&lab, &["show", "1"]);
    assert_all(&shown, &["language     English (eng)"]);

    let DepositedToBoth {
        record, attributes, ..
    } = deposited_to_invenio_and_datacite(&lab, &sandbox, 1).await;
    assert_eq!(
        record["metadata"]["languages"],
        json!([{"id": "eng", "title": {"en": "English"}}])
    );
    assert_eq!(attributes["language"], "en");

    // `--language ""` takes it away: the key is the plain one again.
    let cleared = ["--language", ""];
    assert_eq!(
        key_in(&added_titled_with(&lab, &folder, "Cores", &cleared)),
        plain
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn text_that_names_no_language_is_named_with_the_one_meant_and_nothing_is_deposited() {
    let lab = Lab::new();
    let sandbox = lab.sandbox("sbx", FaultConfig::default()).await;
    let folder = lab.numbered_folder(1);
    let said = text(&add_titled_with(
        &lab,
        &folder,
        "Cores",
        &["--language", "Englsh"],
    ));
    assert_all(
        &said,
        &[
            "language: 'Englsh' is not a language: did you mean English? Or give an ISO 639 \
             code or an English name (--language en)",
        ],
    );
    deposit_all_refused_unsent(&lab, &sandbox).await;
}

/// A `.zenodo.json`'s `language` (an ISO 639-2 code, bibliographic ones too) is read into
/// the dataset's, and no longer named among what the file gives that Lodge does not send.
#[test]
fn zenodo_json_language_prefills_the_language() {
    let (said, shown) = added_with_zenodo_json(
        &Lab::new(),
        "surveyed",
        r#""language": "ger", "notes": "Kept at 4 degrees""#,
    );
    assert_all(&said, &["also gives notes, which Lodge does not send"]);
    assert!(!said.contains("language"), "{said}");
    assert_all(&shown, &["language     German (deu)"]);
}
