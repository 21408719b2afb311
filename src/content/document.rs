//! The canonical, versioned document that a content key is computed over.
//!
//! `{"lodge": 1, "manifest": [...], "metadata": {...}}` encoded with RFC 8785 (JSON
//! Canonicalization Scheme) and hashed with SHA-256. The manifest lists every file's relative
//! path (`/`-separated, NFC), size and SHA-256, sorted by path; nothing per-machine or
//! per-attempt (absolute paths, mtimes, times, random ids) is in it. The same document is the
//! body of a sandbox record, so the server can recompute the key it is given.

use serde::{Deserialize, Serialize};
use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::{ContentKey, DataFingerprint, FieldProblem, Metadata, Sha256Hex};

/// Version of the canonical encoding. Changing what is keyed means a new version.
pub const ENCODING_VERSION: u32 = 1;

/// The largest file size a content key tells apart: RFC 8785 writes numbers as IEEE doubles,
/// exact only up to 2^53 - 1 (8 PiB), so two larger sizes could key the same.
pub const MAX_KEYED_SIZE: u64 = (1 << 53) - 1;

/// One file of a dataset as it is keyed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Relative path, `/`-separated, Unicode NFC.
    pub path: String,
    pub size: u64,
    pub sha256: Sha256Hex,
}

/// Manifest plus metadata: what a deposit is, independent of where or when it is made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentDocument {
    pub lodge: u32,
    pub manifest: Vec<ManifestEntry>,
    pub metadata: Metadata,
}

#[derive(Serialize)]
struct FingerprintDocument<'a> {
    lodge: u32,
    manifest: &'a [ManifestEntry],
}

fn canonical_sha256<T: Serialize>(value: &T) -> Sha256Hex {
    // Serialising plain structs of strings and integers cannot fail.
    let bytes = serde_json_canonicalizer::to_vec(value).expect("canonical JSON of a document");
    Sha256Hex::of(&bytes)
}

impl ContentDocument {
    /// Build the document in its canonical form: metadata normalised, paths NFC, manifest
    /// sorted by path.
    pub fn new(mut manifest: Vec<ManifestEntry>, metadata: &Metadata) -> Self {
        for entry in &mut manifest {
            entry.path = entry.path.nfc().collect();
        }
        manifest.sort_by(|a, b| a.path.cmp(&b.path));
        ContentDocument {
            lodge: ENCODING_VERSION,
            manifest,
            metadata: metadata.normalized(),
        }
    }

    /// The content key: SHA-256 of the RFC 8785 encoding of the whole document.
    pub fn key(&self) -> ContentKey {
        ContentKey(canonical_sha256(self))
    }

    /// The data fingerprint: the same over `{"lodge": 1, "manifest": [...]}` alone.
    pub fn fingerprint(&self) -> DataFingerprint {
        DataFingerprint(canonical_sha256(&FingerprintDocument {
            lodge: self.lodge,
            manifest: &self.manifest,
        }))
    }

    /// The canonical bytes (RFC 8785) of the document, as sent in a record body.
    pub fn canonical_json(&self) -> Vec<u8> {
        serde_json_canonicalizer::to_vec(self).expect("canonical JSON of a document")
    }

    /// Total size of the data in bytes.
    pub fn total_size(&self) -> u64 {
        self.manifest.iter().map(|e| e.size).sum()
    }

    /// Every reason this document cannot be deposited: an unknown encoding version, a manifest
    /// that is empty, unsorted, has duplicate or unsafe paths or sizes beyond
    /// [`MAX_KEYED_SIZE`], and every metadata problem.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let mut out = Vec::new();
        if self.lodge != ENCODING_VERSION {
            out.push(FieldProblem {
                field: "lodge".into(),
                message: format!(
                    "encoding version {} is not supported (this Lodge writes {ENCODING_VERSION})",
                    self.lodge
                ),
            });
        }
        if self.manifest.is_empty() {
            out.push(FieldProblem {
                field: "manifest".into(),
                message: "is empty: a dataset needs at least one file".into(),
            });
        }
        for (i, e) in self.manifest.iter().enumerate() {
            let unsafe_path = e.path.is_empty()
                || e.path.starts_with('/')
                || e.path.contains('\\')
                || e.path
                    .split('/')
                    .any(|c| c.is_empty() || c == "." || c == "..");
            if unsafe_path {
                out.push(FieldProblem {
                    field: format!("manifest[{i}].path"),
                    message: format!("'{}' is not a relative /-separated path", e.path),
                });
            } else if !is_nfc(&e.path) {
                out.push(FieldProblem {
                    field: format!("manifest[{i}].path"),
                    message: format!("'{}' is not in Unicode NFC", e.path),
                });
            }
            if e.size > MAX_KEYED_SIZE {
                out.push(FieldProblem {
                    field: format!("manifest[{i}].size"),
                    message: format!(
                        "{} bytes is more than a content key can tell apart (at most \
                         {MAX_KEYED_SIZE})",
                        e.size
                    ),
                });
            }
            if i > 0 && self.manifest[i - 1].path >= e.path {
                out.push(FieldProblem {
                    field: format!("manifest[{i}].path"),
                    message: format!("'{}' is out of order or repeated", e.path),
                });
            }
        }
        out.extend(self.metadata.problems());
        out
    }
}

/// How one document of a dataset differs from an earlier one: what made its key change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentChanges {
    /// Files in the newer manifest only.
    pub added: usize,
    /// Files in the earlier manifest only.
    pub removed: usize,
    /// Files in both, with other bytes (size or SHA-256).
    pub modified: usize,
    /// Whether the canonical metadata differs.
    pub metadata: bool,
}

impl DocumentChanges {
    /// Whether the files differ at all (the data fingerprint changed).
    pub fn files_changed(&self) -> bool {
        self.added + self.removed + self.modified > 0
    }
}

impl ContentDocument {
    /// What changed from `earlier` to this document. Both manifests are sorted by path (as
    /// [`ContentDocument::new`] leaves them), so one merge walk compares them.
    pub fn changes_since(&self, earlier: &ContentDocument) -> DocumentChanges {
        use std::cmp::Ordering;
        let mut changes = DocumentChanges {
            metadata: self.metadata.normalized() != earlier.metadata.normalized(),
            ..DocumentChanges::default()
        };
        let (mut old, mut new) = (
            earlier.manifest.iter().peekable(),
            self.manifest.iter().peekable(),
        );
        loop {
            match (old.peek(), new.peek()) {
                (None, None) => break,
                (Some(_), None) => {
                    changes.removed += 1;
                    old.next();
                }
                (None, Some(_)) => {
                    changes.added += 1;
                    new.next();
                }
                (Some(o), Some(n)) => match o.path.cmp(&n.path) {
                    Ordering::Less => {
                        changes.removed += 1;
                        old.next();
                    }
                    Ordering::Greater => {
                        changes.added += 1;
                        new.next();
                    }
                    Ordering::Equal => {
                        if o.size != n.size || o.sha256 != n.sha256 {
                            changes.modified += 1;
                        }
                        old.next();
                        new.next();
                    }
                },
            }
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{Affiliation, Creator, FileAccess};

    /// The sample's document with `lines`, each read by `parse`, in the metadata's list
    /// that `set` fills.
    fn sample_with<T>(
        lines: &[&str],
        parse: fn(&str) -> Result<T, String>,
        set: fn(&mut Metadata, Vec<T>),
    ) -> ContentDocument {
        let (m, mut meta) = sample();
        set(&mut meta, lines.iter().map(|l| parse(l).unwrap()).collect());
        ContentDocument::new(m, &meta)
    }

    fn sample() -> (Vec<ManifestEntry>, Metadata) {
        let manifest = vec![
            ManifestEntry {
                path: "b.csv".into(),
                size: 3,
                sha256: Sha256Hex::of(b"abc"),
            },
            ManifestEntry {
                path: "a/x.txt".into(),
                size: 1,
                sha256: Sha256Hex::of(b"x"),
            },
        ];
        let metadata = Metadata {
            title: "Soil".into(),
            creators: vec![Creator::named("Curie, Marie")],
            publisher: "Lab".into(),
            publication_year: Some(2026),
            ..Metadata::default()
        };
        (manifest, metadata)
    }

    /// Related works are keyed (each once, as DataCite spells the relation, a DOI bare and
    /// in lower case), so two spellings of the same works key the same; a dataset with none
    /// keys as it did before they could be given (the text pinned in the test below).
    #[test]
    fn related_works_are_keyed_in_one_spelling_and_none_add_nothing() {
        let with = |lines: &[&str]| {
            sample_with(lines, crate::content::RelatedWork::parse, |m, items| {
                m.related = items
            })
        };
        let none = with(&[]);
        let (m, meta) = sample();
        assert_eq!(none.key(), ContentDocument::new(m, &meta).key());
        let one = with(&["IsSupplementTo 10.1234/Paper"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(
                r#""related":[{"identifier":"10.1234/paper","relation":"IsSupplementTo"}]"#
            ),
            "{text}"
        );
        let respelt = with(&[
            "issupplementto https://doi.org/10.1234/PAPER",
            "IsSupplementTo doi:10.1234/paper",
        ]);
        assert_eq!(respelt.key(), one.key(), "one work, however written");
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Funding is keyed (each funder once, trimmed), so the same funding written with other
    /// spaces keys the same; a dataset with none keys as before funding could be given.
    #[test]
    fn funding_is_keyed_once_each_and_none_adds_nothing() {
        let with = |lines: &[&str]| {
            sample_with(lines, crate::content::Funding::parse, |m, items| {
                m.funding = items
            })
        };
        let none = with(&[]);
        let (m, meta) = sample();
        assert_eq!(none.key(), ContentDocument::new(m, &meta).key());
        let one = with(&["NSF; award=2045678; award-title=Cores"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(
                r#""funding":[{"award_number":"2045678","award_title":"Cores","funder":"NSF"}]"#
            ),
            "{text}"
        );
        let respaced = with(&[
            " NSF ;award-title= Cores;award=2045678",
            "NSF; award=2045678; award-title=Cores",
        ]);
        assert_eq!(respaced.key(), one.key(), "one funder, however written");
        assert_ne!(
            with(&["NSF; award=2045679; award-title=Cores"]).key(),
            one.key()
        );
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Contributors are keyed (each once, the role as DataCite spells it), and a dataset
    /// with none keys as before they could be given.
    #[test]
    fn contributors_are_keyed_in_one_spelling_and_none_add_nothing() {
        let with = |lines: &[&str]| {
            sample_with(lines, crate::content::Contributor::parse, |m, items| {
                m.contributors = items
            })
        };
        let none = with(&[]);
        let (m, meta) = sample();
        assert_eq!(none.key(), ContentDocument::new(m, &meta).key());
        let one = with(&["Curie, Marie; role=ContactPerson"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(r#""contributors":[{"name":"Curie, Marie","role":"ContactPerson"}]"#),
            "{text}"
        );
        let respelt = with(&[
            " Curie, Marie ;role=contactperson",
            "Curie, Marie; role=CONTACTPERSON",
        ]);
        assert_eq!(respelt.key(), one.key(), "one contributor, however written");
        assert_ne!(with(&["Curie, Marie; role=Editor"]).key(), one.key());
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Dates are keyed (each once, the type as DataCite spells it, the date without
    /// spaces), and a dataset with none keys as before they could be given.
    #[test]
    fn dates_are_keyed_in_one_spelling_and_none_add_nothing() {
        let with = |lines: &[&str]| {
            sample_with(lines, crate::content::DatasetDate::parse, |m, items| {
                m.dates = items
            })
        };
        let none = with(&[]);
        let (m, meta) = sample();
        assert_eq!(none.key(), ContentDocument::new(m, &meta).key());
        let one = with(&["Collected 2025-03/2025-06"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(r#""dates":[{"date":"2025-03/2025-06","date_type":"Collected"}]"#),
            "{text}"
        );
        let respelt = with(&["collected 2025-03 / 2025-06", "COLLECTED 2025-03/2025-06"]);
        assert_eq!(respelt.key(), one.key(), "one date, however written");
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Locations are keyed (each once, each number in its shortest spelling), and a dataset
    /// with none keys as before they could be given.
    #[test]
    fn locations_are_keyed_in_one_spelling_and_none_add_nothing() {
        let (m, meta) = sample();
        let with = |lines: &[&str]| {
            let meta = Metadata {
                locations: lines
                    .iter()
                    .map(|l| crate::content::Location::parse(l).unwrap())
                    .collect(),
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(&[]);
        assert_eq!(none.key(), ContentDocument::new(m.clone(), &meta).key());
        let one = with(&["Lake Zurich; lat=47.27; lon=8.65"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(
                r#""locations":[{"latitude":"47.27","longitude":"8.65","place":"Lake Zurich"}]"#
            ),
            "{text}"
        );
        let respelt = with(&[
            "Lake Zurich ; lon=8.650; lat=+47.270",
            "Lake Zurich; lat=47.27; lon=8.65",
        ]);
        assert_eq!(respelt.key(), one.key(), "one location, however written");
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Methods are keyed (trimmed), and a dataset without them keys as before they could be
    /// given.
    #[test]
    fn methods_are_keyed_and_none_add_nothing() {
        let (m, meta) = sample();
        let with = |methods: Option<&str>| {
            let meta = Metadata {
                methods: methods.map(str::to_string),
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(None);
        assert_eq!(none.key(), ContentDocument::new(m.clone(), &meta).key());
        assert_eq!(with(Some("  ")).key(), none.key(), "blank is none");
        let one = with(Some("Sieved at 2 mm"));
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(text.contains(r#""methods":"Sieved at 2 mm""#), "{text}");
        assert_eq!(with(Some(" Sieved at 2 mm\n")).key(), one.key());
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// The language is keyed as its ISO 639-3 code, so its spellings key the same; a
    /// dataset without one keys as before it could be given.
    #[test]
    fn the_language_is_keyed_as_its_code_and_none_adds_nothing() {
        let (m, meta) = sample();
        let with = |language: Option<&str>| {
            let meta = Metadata {
                language: language.map(str::to_string),
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(None);
        assert_eq!(none.key(), ContentDocument::new(m.clone(), &meta).key());
        assert_eq!(with(Some(" ")).key(), none.key(), "blank is none");
        let one = with(Some("en"));
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(text.contains(r#""language":"eng""#), "{text}");
        for spelt in ["eng", "English", "en-GB"] {
            assert_eq!(with(Some(spelt)).key(), one.key(), "{spelt}");
        }
        assert_ne!(with(Some("de")).key(), one.key());
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// A creator's affiliation ROR is keyed as its address, so its spellings key the same;
    /// a creator without one keys as before it could be given.
    #[test]
    fn an_affiliation_ror_is_keyed_as_its_address_and_none_adds_nothing() {
        let (m, meta) = sample();
        let with = |ror: Option<&str>| {
            let creator = Creator {
                affiliations: vec![Affiliation {
                    name: "Sorbonne Université".into(),
                    ror: ror.map(str::to_string),
                }],
                ..Creator::named("Curie, Marie")
            };
            let meta = Metadata {
                creators: vec![creator],
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(None);
        let text = String::from_utf8(none.canonical_json()).unwrap();
        assert!(!text.contains("affiliation_ror"), "{text}");
        assert_eq!(with(Some(" ")).key(), none.key(), "blank is none");
        let one = with(Some("02EN5VM52"));
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(r#""affiliation_ror":"https://ror.org/02en5vm52""#),
            "{text}"
        );
        assert_eq!(with(Some("https://ror.org/02en5vm52/")).key(), one.key());
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// A creator and a contributor with one affiliation key exactly as they did before a
    /// person could have several: the whole keyed text and the key are pinned here, so a
    /// dataset deposited then is still known as the same one.
    #[test]
    fn one_affiliation_keys_exactly_as_before_several_could_be_given() {
        let (m, meta) = sample();
        let creator = Creator {
            orcid: Some("0000-0002-1825-0097".into()),
            affiliations: vec![Affiliation {
                name: "Sorbonne Université".into(),
                ror: Some("02en5vm52".into()),
            }],
            ..Creator::named("Curie, Marie")
        };
        let contributor = crate::content::Contributor::parse(
            "Soil Lab; role=HostingInstitution; affiliation=Uni",
        )
        .unwrap();
        let meta = Metadata {
            creators: vec![creator],
            contributors: vec![contributor],
            ..meta
        };
        let doc = ContentDocument::new(m, &meta);
        let text = String::from_utf8(doc.canonical_json()).unwrap();
        assert!(
            text.ends_with(
                r#""metadata":{"contributors":[{"affiliation":"Uni","name":"Soil Lab","role":"HostingInstitution"}],"creators":[{"affiliation":"Sorbonne Université","affiliation_ror":"https://ror.org/02en5vm52","name":"Curie, Marie","orcid":"0000-0002-1825-0097"}],"publication_year":2026,"publisher":"Lab","resource_type":"Dataset","title":"Soil"}}"#
            ),
            "{text}"
        );
        assert_eq!(
            doc.key().to_string(),
            "dd0f428aeae4b1641cb3a5af9a7b36da180635d444eede7991c57c632ddcab55"
        );
    }

    /// An organisation's own ROR is keyed as its address, so its spellings key the same; an
    /// organisation without one keys as before it could be given.
    #[test]
    fn an_organisations_own_ror_is_keyed_as_its_address_and_none_adds_nothing() {
        let (m, meta) = sample();
        let with = |ror: Option<&str>| {
            let creator = Creator {
                ror: ror.map(str::to_string),
                ..Creator::named("European Organization for Nuclear Research")
            };
            let meta = Metadata {
                creators: vec![creator],
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(None);
        let text = String::from_utf8(none.canonical_json()).unwrap();
        assert!(!text.contains("ror"), "{text}");
        assert_eq!(with(Some(" ")).key(), none.key(), "blank is none");
        let one = with(Some("01GGX4157"));
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(
            text.contains(r#""ror":"https://ror.org/01ggx4157""#),
            "{text}"
        );
        assert_eq!(with(Some("ror.org/01ggx4157/")).key(), one.key());
        assert_ne!(one.key(), none.key());
    }

    /// Communities are keyed (each once, by its short name), and a dataset with none keys
    /// as before they could be given.
    #[test]
    fn communities_are_keyed_by_short_name_and_none_add_nothing() {
        let (m, meta) = sample();
        let with = |names: &[&str]| {
            let meta = Metadata {
                communities: names.iter().map(|n| n.to_string()).collect(),
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let none = with(&[]);
        assert_eq!(none.key(), ContentDocument::new(m.clone(), &meta).key());
        let one = with(&["soil-science"]);
        let text = String::from_utf8(one.canonical_json()).unwrap();
        assert!(text.contains(r#""communities":["soil-science"]"#), "{text}");
        let respelt = with(&[
            "https://zenodo.org/communities/Soil-Science/",
            "soil-science",
        ]);
        assert_eq!(respelt.key(), one.key(), "one community, however written");
        assert_ne!(one.key(), none.key());
        assert_eq!(one.fingerprint(), none.fingerprint(), "the same data");
    }

    /// Open files (the default) add nothing to the keyed metadata, so every key made
    /// before file access could be chosen is the key of the same dataset now; restricted
    /// or embargoed files are keyed, the embargo's date with them.
    #[test]
    fn open_files_leave_the_keyed_metadata_as_it_was_and_other_access_is_keyed() {
        let (m, meta) = sample();
        let open = ContentDocument::new(m.clone(), &meta);
        let text = String::from_utf8(open.canonical_json()).unwrap();
        assert_eq!(
            &text[text.find("\"metadata\"").unwrap()..],
            r#""metadata":{"creators":[{"name":"Curie, Marie"}],"publication_year":2026,"publisher":"Lab","resource_type":"Dataset","title":"Soil"}}"#
        );
        // A document stored before (no access field) reads back as open, keyed the same.
        let stored: ContentDocument = serde_json::from_str(&text).unwrap();
        assert_eq!(stored.key(), open.key());

        let with = |access: FileAccess| {
            let meta = Metadata {
                access,
                ..meta.clone()
            };
            ContentDocument::new(m.clone(), &meta)
        };
        let embargoed = with(FileAccess::Embargoed {
            until: " 2099-06-30 ".into(),
        });
        let text = String::from_utf8(embargoed.canonical_json()).unwrap();
        assert!(
            text.contains(r#""access":{"files":"embargoed","until":"2099-06-30"}"#),
            "{text}"
        );
        let later = with(FileAccess::Embargoed {
            until: "2099-07-01".into(),
        });
        let keys = [
            open.key(),
            with(FileAccess::Restricted).key(),
            embargoed.key(),
            later.key(),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(embargoed.fingerprint(), open.fingerprint(), "the same data");
    }

    #[test]
    fn manifest_order_does_not_change_the_key() {
        let (m, meta) = sample();
        let mut reversed = m.clone();
        reversed.reverse();
        assert_eq!(
            ContentDocument::new(m, &meta).key(),
            ContentDocument::new(reversed, &meta).key()
        );
    }

    #[test]
    fn metadata_changes_the_key_but_not_the_fingerprint() {
        let (m, meta) = sample();
        let a = ContentDocument::new(m.clone(), &meta);
        let mut other = meta.clone();
        other.title = "Soil, revised".into();
        let b = ContentDocument::new(m, &other);
        assert_ne!(a.key(), b.key());
        assert_eq!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn changes_since_counts_files_added_removed_and_modified_and_notes_new_metadata() {
        let (m, meta) = sample();
        let before = ContentDocument::new(m.clone(), &meta);
        assert_eq!(
            before.changes_since(&before),
            DocumentChanges::default(),
            "a document has not changed from itself"
        );
        let mut files = m;
        files[0].sha256 = Sha256Hex::of(b"abd"); // b.csv: same size, other bytes
        files.remove(1); // a/x.txt gone
        files.push(ManifestEntry {
            path: "c.txt".into(),
            size: 2,
            sha256: Sha256Hex::of(b"cc"),
        });
        let mut retitled = meta.clone();
        retitled.title = "Soil, revised".into();
        let after = ContentDocument::new(files.clone(), &meta);
        let changes = after.changes_since(&before);
        assert_eq!(
            changes,
            DocumentChanges {
                added: 1,
                removed: 1,
                modified: 1,
                metadata: false
            }
        );
        assert!(changes.files_changed());
        let only_metadata = ContentDocument::new(before.manifest.clone(), &retitled);
        let changes = only_metadata.changes_since(&before);
        assert!(changes.metadata && !changes.files_changed(), "{changes:?}");
    }

    #[test]
    fn key_is_sha256_of_the_jcs_document() {
        let (m, meta) = sample();
        let doc = ContentDocument::new(m, &meta);
        let text = String::from_utf8(doc.canonical_json()).unwrap();
        assert!(text.starts_with("{\"lodge\":1,\"manifest\":[{\"path\":\"a/x.txt\""));
        assert_eq!(doc.key().0, Sha256Hex::of(text.as_bytes()));
    }
}
