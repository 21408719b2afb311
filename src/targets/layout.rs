//! Where a file store (S3, WebDAV) keeps a deposit's files: under their digests, shared by
//! every deposit (`PREFIX/blobs/sha256/HEX`, the default), or, with `?layout=folders` on
//! the target's URL, in a folder of the dataset's own under the files' own names
//! (`PREFIX/datasets/TITLE-KEY12/PATH`), so a person browsing the bucket or the WebDAV
//! share finds each dataset as it was on disk.
//!
//! Each layout keeps its records apart, under `PREFIX/records/`: `KEY.json` by digest,
//! `KEY.folders.json` in folders ([`FileLayout::record_path`]), written last with
//! `If-None-Match: *`: the server arbitrates, and a key is looked up, the same way. Apart,
//! because the layout is part of the target's identity: a deposit of a key in one layout
//! does not hold its files in the other, so its record must not answer for them (a deposit
//! to the folders layout of a prefix whose default layout had the key took that record for
//! its own, with the folder empty). A dataset's folder is named by its document alone (its
//! title and key), so every writer of one key, on any machine, writes the same paths: a
//! retry finds what an earlier try sent.

use super::http::check_url_options;
use crate::content::{ContentDocument, ContentKey, ManifestEntry};

/// The query a target URL takes to keep files in folders ([`FileLayout::Folders`]).
pub const FOLDERS_QUERY: &str = "layout=folders";

/// How many characters of the title a dataset's folder name keeps.
const TITLE_CHARS: usize = 60;

/// How many hex digits of the key end a dataset's folder name: enough that two keys of one
/// title never share a folder (one chance in 2^48).
const KEY_DIGITS: usize = 12;

/// How a file store lays a deposit's files out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileLayout {
    /// `blobs/sha256/HEX`: each distinct content once, whichever datasets hold it.
    #[default]
    Digests,
    /// `datasets/TITLE-KEY12/PATH`: each dataset's files under their own names.
    Folders,
}

impl FileLayout {
    /// The layout a target URL's query (after the `?`) asks for: none, `layout=folders`
    /// or `layout=digests`. Any other option or layout is refused, naming those taken.
    pub fn from_query(query: Option<&str>) -> Result<FileLayout, String> {
        check_url_options(query, &["layout"])
            .map_err(|e| format!("{e}; write a '?' or '#' in a folder's name as %3F or %23"))?;
        let asked = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .find(|(name, _)| name == "layout")
            .map(|(_, value)| value.into_owned());
        match asked.as_deref() {
            None | Some("digests") => Ok(FileLayout::Digests),
            Some("folders") => Ok(FileLayout::Folders),
            Some(other) => Err(format!(
                "layout '{other}' is not one of folders (each dataset's files in a folder of \
                 its own, under their own names) or digests (the default: each content once, \
                 under its SHA-256)"
            )),
        }
    }

    /// What the target's identity (and URL) ends with: nothing for the default, so the
    /// identities of targets saved before layouts existed stay as they were.
    pub fn scope_suffix(self) -> &'static str {
        match self {
            FileLayout::Digests => "",
            FileLayout::Folders => "?layout=folders",
        }
    }

    /// What a target's label says of its layout: nothing for the default.
    pub fn label_note(self) -> &'static str {
        match self {
            FileLayout::Digests => "",
            FileLayout::Folders => " (a folder per dataset)",
        }
    }

    /// What messages call one stored file: a blob (named by its digest) or a file.
    pub fn noun(self) -> &'static str {
        match self {
            FileLayout::Digests => "blob",
            FileLayout::Folders => "file",
        }
    }

    /// Where `entry` of the deposit of `key` is kept, relative to the target's root:
    /// `/`-separated segments, not percent-encoded.
    pub fn file_path(
        self,
        key: &ContentKey,
        document: &ContentDocument,
        entry: &ManifestEntry,
    ) -> String {
        match self {
            FileLayout::Digests => format!("blobs/sha256/{}", entry.sha256),
            FileLayout::Folders => format!("{}/{}", dataset_folder(key, document), entry.path),
        }
    }

    /// Where the record of the deposit of `key` is kept, relative to the target's root.
    pub fn record_path(self, key: &ContentKey) -> String {
        match self {
            FileLayout::Digests => format!("records/{key}.json"),
            FileLayout::Folders => format!("records/{key}.folders.json"),
        }
    }

    /// Where this layout kept the record of `key` before its records were kept apart
    /// (2026-12-07: both layouts wrote `records/KEY.json`). Read by a check of a deposit
    /// recorded there, so that it still checks whole; never by a look-up, which would take
    /// the other layout's record of the key for this one's.
    pub fn earlier_record_path(self, key: &ContentKey) -> Option<String> {
        match self {
            FileLayout::Digests => None,
            FileLayout::Folders => Some(format!("records/{key}.json")),
        }
    }

    /// Whether two files of one deposit with the same bytes are one stored file (so sent
    /// and read back once).
    pub fn shares_identical_files(self) -> bool {
        self == FileLayout::Digests
    }
}

/// Whether a target URL is of a kind that lays files out itself (S3 or WebDAV), so takes
/// `?layout=folders`.
pub fn url_lays_out_files(url: &str) -> bool {
    let url = url.trim_start().to_ascii_lowercase();
    url.starts_with("s3://") || url.starts_with("webdav+")
}

/// Whether a target URL asks for the folders layout.
pub fn url_keeps_folders(url: &str) -> bool {
    url.trim_end()
        .split_once('?')
        .is_some_and(|(_, query)| query == FOLDERS_QUERY)
}

/// `url` asking for the folders layout (`folders`) or for the default one: its query, the
/// only one such a URL takes, set or taken off.
pub fn url_with_folders(url: &str, folders: bool) -> String {
    let address = url.trim_end();
    let address = address.split_once('?').map_or(address, |(a, _)| a);
    if folders {
        format!("{address}?{FOLDERS_QUERY}")
    } else {
        address.to_string()
    }
}

/// The folder that holds a dataset's files in the [`FileLayout::Folders`] layout:
/// `datasets/TITLE-KEY12`, the title cut to letters, digits and single dashes.
pub fn dataset_folder(key: &ContentKey, document: &ContentDocument) -> String {
    dataset_folder_titled(key, &document.metadata.title)
}

/// The address of the folder of the deposit of `key` of a dataset titled `title` (its
/// title at that key), under `base`, where a target keeps them
/// ([`super::Target::datasets_base`], ending in `/`).
pub fn dataset_folder_address(base: &str, key: &ContentKey, title: &str) -> String {
    format!("{base}{}/", dataset_folder_titled(key, title))
}

/// [`dataset_folder`] of the key `key` of a dataset titled `title` (its title at that key).
pub fn dataset_folder_titled(key: &ContentKey, title: &str) -> String {
    let hex = key.to_hex();
    format!(
        "datasets/{}-{}",
        title_for_folder(title),
        &hex[..KEY_DIGITS]
    )
}

/// A title as a folder name: letters and digits (any script) kept, every run of anything
/// else one `-`, at most [`TITLE_CHARS`] characters; `dataset` when nothing is left. Safe
/// on every file system and object store, and never `.` or `..`.
fn title_for_folder(title: &str) -> String {
    let mut name = String::new();
    let mut kept = 0;
    for c in title.chars() {
        if kept == TITLE_CHARS {
            break;
        }
        if c.is_alphanumeric() {
            name.push(c);
        } else if name.ends_with('-') || name.is_empty() {
            continue;
        } else {
            name.push('-');
        }
        kept += 1;
    }
    let name = name.trim_end_matches('-');
    if name.is_empty() {
        "dataset".into()
    } else {
        name.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_becomes_letters_digits_and_single_dashes() {
        assert_eq!(
            title_for_folder("Soil moisture, site A (2025)"),
            "Soil-moisture-site-A-2025"
        );
        assert_eq!(
            title_for_folder("  ../Ölmühle: Messungen #3 "),
            "Ölmühle-Messungen-3"
        );
        assert_eq!(title_for_folder("???"), "dataset");
        assert_eq!(
            title_for_folder(&"x".repeat(200)).chars().count(),
            TITLE_CHARS
        );
    }

    #[test]
    fn the_folders_query_is_put_on_and_taken_off_a_url() {
        let url = "s3://lab-data/deposits";
        assert!(url_lays_out_files(url));
        assert!(url_lays_out_files("webdav+https://dav.example.org/x"));
        assert!(!url_lays_out_files("zenodo+https://zenodo.org"));
        let on = url_with_folders(url, true);
        assert_eq!(on, "s3://lab-data/deposits?layout=folders");
        assert!(url_keeps_folders(&on));
        assert_eq!(url_with_folders(&on, true), on, "once");
        assert_eq!(url_with_folders(&on, false), url);
        assert!(!url_keeps_folders(url));
    }

    #[test]
    fn only_the_folders_query_and_the_default_are_taken() {
        assert_eq!(FileLayout::from_query(None), Ok(FileLayout::Digests));
        assert_eq!(FileLayout::from_query(Some("")), Ok(FileLayout::Digests));
        assert_eq!(
            FileLayout::from_query(Some("layout=folders")),
            Ok(FileLayout::Folders)
        );
        let refused = FileLayout::from_query(Some("layout=tree")).unwrap_err();
        assert!(refused.contains("layout 'tree'"), "{refused}");
        assert!(refused.contains("not one of folders"), "{refused}");
        let refused = FileLayout::from_query(Some("layuot=folders")).unwrap_err();
        assert!(refused.contains("'layuot' is not an option"), "{refused}");
        assert!(refused.contains("it takes 'layout'"), "{refused}");
        let twice = FileLayout::from_query(Some("layout=folders&layout=digests")).unwrap_err();
        assert!(twice.contains("given twice"), "{twice}");
    }
}
