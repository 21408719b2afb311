//! What a repository still holds of a deposit that landed, read back for `lodge verify`: the
//! record of the key, and each file of the manifest by its size or by the SHA-256 of its
//! bytes read back. Each target reads its own layout ([`super::Target::holdings`]); the
//! comparison with the manifest, and the words for what differs, are here, the same for
//! every target.

use std::collections::HashMap;
use std::fmt;

use futures_util::future::BoxFuture;
use sha2::Digest as _;

use super::each_file::{FilesAtOnce, one_entry_per_digest, read_each_file};
use super::layout::FileLayout;
use super::{Failure, ProgressSink, RecordRef};
use crate::content::{ContentDocument, ManifestEntry, Sha256Hex};
use crate::wording::{count_of, human_bytes};

/// How closely to look at the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadBack {
    /// Ask for each file's size (a HEAD or a file list): cheap, finds missing and truncated
    /// files, not bytes changed in place.
    Sizes,
    /// Read every byte back and hash it: finds any change, costs the whole download.
    Bytes,
}

/// What the server holds of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileHeld {
    Missing,
    /// There, with its size and, when the bytes were read back, their SHA-256.
    Present {
        size: u64,
        sha256: Option<Sha256Hex>,
    },
}

/// What the server holds of one deposit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holdings {
    /// The record of the key, if the server still has it.
    pub record: Option<RecordRef>,
    /// Each manifest file by its path, in manifest order. Empty for a target that keeps no
    /// files (DataCite holds metadata only).
    pub files: Vec<(String, FileHeld)>,
}

impl Holdings {
    /// For a content-addressed store: each manifest file is what the server holds under
    /// its digest (`held`, read once per distinct digest).
    pub fn by_digest(
        record: Option<RecordRef>,
        document: &ContentDocument,
        held: &HashMap<Sha256Hex, FileHeld>,
    ) -> Holdings {
        let files = document
            .manifest
            .iter()
            .map(|e| {
                let file = held.get(&e.sha256).cloned().unwrap_or(FileHeld::Missing);
                (e.path.clone(), file)
            })
            .collect();
        Holdings { record, files }
    }

    /// What differs from the manifest and from the record Lodge recorded (`recorded`, the
    /// identifier); empty when the deposit is intact.
    pub fn discrepancies(&self, document: &ContentDocument, recorded: &str) -> Vec<Discrepancy> {
        let mut found = Vec::new();
        match &self.record {
            None => found.push(Discrepancy::RecordGone {
                recorded: recorded.to_string(),
            }),
            Some(r) if !same_record(&r.identifier, recorded) => {
                found.push(Discrepancy::OtherRecord {
                    recorded: recorded.to_string(),
                    found: r.identifier.clone(),
                })
            }
            Some(_) => {}
        }
        let held: HashMap<&str, &FileHeld> =
            self.files.iter().map(|(p, f)| (p.as_str(), f)).collect();
        if self.files.is_empty() {
            return found;
        }
        for entry in &document.manifest {
            match held.get(entry.path.as_str()) {
                None | Some(FileHeld::Missing) => found.push(Discrepancy::FileMissing {
                    path: entry.path.clone(),
                }),
                Some(FileHeld::Present { size, sha256 }) => {
                    if *size != entry.size {
                        found.push(Discrepancy::SizeDiffers {
                            path: entry.path.clone(),
                            expected: entry.size,
                            found: *size,
                        });
                    } else if let Some(sha256) = sha256
                        && *sha256 != entry.sha256
                    {
                        found.push(Discrepancy::BytesDiffer {
                            path: entry.path.clone(),
                            found: *sha256,
                        });
                    }
                }
            }
        }
        found
    }
}

/// Whether the identifier a server gives now (`found`) names the record Lodge recorded
/// (`recorded`): the same, or the same URL written with other percent-encoding. (S3 object
/// URLs encode every byte but letters, digits and `-_.~` since 2026-12-04: a prefix with
/// `+` or `(` was recorded with them as they are.)
fn same_record(found: &str, recorded: &str) -> bool {
    found == recorded
        || percent_encoding::percent_decode_str(found)
            .eq(percent_encoding::percent_decode_str(recorded))
}

/// One way a deposit on the server differs from what Lodge deposited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Discrepancy {
    RecordGone {
        recorded: String,
    },
    OtherRecord {
        recorded: String,
        found: String,
    },
    /// Where the record of the key belongs stands something that is not it (the target's
    /// words, naming what it found).
    RecordReplaced {
        message: String,
        /// Whether a repair writes the record there once what stands there is moved away
        /// ([`super::Target::rewrites_gone_records`]: S3, WebDAV); elsewhere (a DataCite DOI
        /// carrying another key) it writes nothing, and a person sees to it.
        written_again: bool,
    },
    FileMissing {
        path: String,
    },
    SizeDiffers {
        path: String,
        expected: u64,
        found: u64,
    },
    BytesDiffer {
        path: String,
        found: Sha256Hex,
    },
}

impl Discrepancy {
    /// The manifest path of the file it is about; `None` when it is about the record.
    pub fn file(&self) -> Option<&str> {
        match self {
            Discrepancy::FileMissing { path }
            | Discrepancy::SizeDiffers { path, .. }
            | Discrepancy::BytesDiffer { path, .. } => Some(path),
            Discrepancy::RecordGone { .. }
            | Discrepancy::OtherRecord { .. }
            | Discrepancy::RecordReplaced { .. } => None,
        }
    }
}

/// How [`Discrepancy::BytesDiffer`] says it, after the file's path: only a check that
/// reads bytes back finds it, so a later check by sizes alone cannot call it gone.
pub const OTHER_BYTES: &str = "has other bytes on the server";

impl fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Discrepancy::RecordGone { recorded } => write!(
                f,
                "the record {recorded} is gone: the server has no record of this key"
            ),
            Discrepancy::OtherRecord { recorded, found } => write!(
                f,
                "the server's record of this key is {found}, not {recorded} as recorded"
            ),
            Discrepancy::RecordReplaced { message, .. } => f.write_str(message),
            Discrepancy::FileMissing { path } => write!(f, "{path} is missing"),
            Discrepancy::SizeDiffers {
                path,
                expected,
                found,
            } => write!(
                f,
                "{path} is {} on the server, {} when deposited",
                count_of(*found, "byte", "bytes"),
                count_of(*expected, "byte", "bytes")
            ),
            Discrepancy::BytesDiffer { path, found } => write!(
                f,
                "{path} {OTHER_BYTES} (SHA-256 {}, not the manifest's)",
                &found.to_hex()[..12]
            ),
        }
    }
}

/// `record`, and each file of `document` as `read_file` reads what the store keeps of it
/// where `layout` puts it: once per distinct digest where identical files are one blob, each
/// file on its own where each is kept under its own name; `at_once` files at a time
/// ([`super::each_file`]).
pub async fn read_files<'a, F>(
    record: Option<RecordRef>,
    document: &'a ContentDocument,
    layout: FileLayout,
    at_once: FilesAtOnce,
    read_file: F,
) -> Result<Holdings, Failure>
where
    F: Fn(&'a ManifestEntry) -> BoxFuture<'a, Result<FileHeld, Failure>>,
{
    if !layout.shares_identical_files() {
        let held = read_each_file(&document.manifest, at_once, read_file).await?;
        let files = document
            .manifest
            .iter()
            .map(|e| e.path.clone())
            .zip(held)
            .collect();
        return Ok(Holdings { record, files });
    }
    let blobs = one_entry_per_digest(&document.manifest);
    let digests: Vec<Sha256Hex> = blobs.iter().map(|e| e.sha256).collect();
    let held = read_each_file(blobs, at_once, read_file).await?;
    let held: HashMap<Sha256Hex, FileHeld> = digests.into_iter().zip(held).collect();
    Ok(Holdings::by_digest(record, document, &held))
}

/// The size a HEAD (or GET) answer gives in its `Content-Length`.
pub fn content_length(resp: &reqwest::Response) -> Option<u64> {
    resp.headers()
        .get(reqwest::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// Read a body to its end, hashing it as it comes (and telling `progress` of each chunk):
/// what the server holds, by its bytes.
pub async fn hash_body(
    mut resp: reqwest::Response,
    progress: &ProgressSink,
) -> Result<FileHeld, Failure> {
    let url = resp.url().clone();
    let status = resp.status().as_u16();
    let mut hasher = sha2::Sha256::new();
    let mut size = 0u64;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                size += chunk.len() as u64;
                hasher.update(&chunk);
                progress(chunk.len() as u64);
            }
            Ok(None) => break,
            Err(e) => {
                return Err(Failure::Ambiguous {
                    status: Some(status),
                    message: format!("reading {url} back was cut off: {e}"),
                });
            }
        }
    }
    Ok(FileHeld::Present {
        size,
        sha256: Some(Sha256Hex(hasher.finalize().into())),
    })
}

/// A line about a deposit's files: how many were checked, and how.
pub fn files_checked(document: &ContentDocument, read: ReadBack) -> String {
    let n = document.manifest.len() as u64;
    let total: u64 = document.manifest.iter().map(|e| e.size).sum();
    let how = match read {
        ReadBack::Sizes => "sizes match",
        ReadBack::Bytes => "read back, SHA-256 match",
    };
    format!(
        "{}, {}: {how}",
        count_of(n, "file", "files"),
        human_bytes(total)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Metadata;

    fn document() -> ContentDocument {
        let entry = |path: &str, data: &[u8]| ManifestEntry {
            path: path.into(),
            size: data.len() as u64,
            sha256: Sha256Hex::of(data),
        };
        ContentDocument {
            lodge: 1,
            manifest: vec![
                entry("a.csv", b"1,2\n"),
                entry("copy/a.csv", b"1,2\n"),
                entry("b.txt", b"hello"),
            ],
            metadata: Metadata::default(),
        }
    }

    fn record(id: &str) -> Option<RecordRef> {
        Some(RecordRef {
            identifier: id.into(),
            url: None,
        })
    }

    fn present(data: &[u8], read: ReadBack) -> FileHeld {
        FileHeld::Present {
            size: data.len() as u64,
            sha256: (read == ReadBack::Bytes).then(|| Sha256Hex::of(data)),
        }
    }

    /// What a server holding every file of [`document`] whole answers, read by `read`.
    fn whole(read: ReadBack) -> HashMap<Sha256Hex, FileHeld> {
        HashMap::from([
            (Sha256Hex::of(b"1,2\n"), present(b"1,2\n", read)),
            (Sha256Hex::of(b"hello"), present(b"hello", read)),
        ])
    }

    #[test]
    fn a_deposit_held_whole_has_no_discrepancy_by_sizes_or_bytes() {
        let doc = document();
        for read in [ReadBack::Sizes, ReadBack::Bytes] {
            let holdings = Holdings::by_digest(record("7"), &doc, &whole(read));
            assert_eq!(holdings.discrepancies(&doc, "7"), []);
        }
    }

    #[test]
    fn a_record_url_written_with_other_percent_encoding_is_the_same_record() {
        let doc = document();
        let now = "http://h:9000/lab/runs%2B%282026%29/records/k.json";
        let holdings = Holdings::by_digest(record(now), &doc, &whole(ReadBack::Sizes));
        assert_eq!(
            holdings.discrepancies(&doc, "http://h:9000/lab/runs+(2026)/records/k.json"),
            []
        );
        assert!(matches!(
            holdings.discrepancies(&doc, "http://h:9000/lab/runs+(2025)/records/k.json")[..],
            [Discrepancy::OtherRecord { .. }]
        ));
    }

    #[test]
    fn each_file_sharing_a_missing_blob_is_named() {
        let doc = document();
        let held = HashMap::from([(Sha256Hex::of(b"hello"), present(b"hello", ReadBack::Sizes))]);
        let found = Holdings::by_digest(record("7"), &doc, &held).discrepancies(&doc, "7");
        assert_eq!(
            found,
            [
                Discrepancy::FileMissing {
                    path: "a.csv".into()
                },
                Discrepancy::FileMissing {
                    path: "copy/a.csv".into()
                },
            ]
        );
        assert_eq!(found[0].to_string(), "a.csv is missing");
    }

    #[test]
    fn a_short_file_and_changed_bytes_are_told_apart() {
        let doc = document();
        let held = HashMap::from([
            (Sha256Hex::of(b"1,2\n"), present(b"1,", ReadBack::Sizes)),
            (Sha256Hex::of(b"hello"), present(b"HELLO", ReadBack::Bytes)),
        ]);
        let found = Holdings::by_digest(record("7"), &doc, &held).discrepancies(&doc, "7");
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0].to_string(),
            "a.csv is 2 bytes on the server, 4 bytes when deposited"
        );
        assert!(
            found[2]
                .to_string()
                .starts_with("b.txt has other bytes on the server (SHA-256 "),
            "{}",
            found[2]
        );
    }

    #[test]
    fn a_record_gone_or_another_is_a_discrepancy_even_without_files() {
        let doc = document();
        let gone = Holdings {
            record: None,
            files: Vec::new(),
        };
        assert_eq!(
            gone.discrepancies(&doc, "10.80000/x")
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["the record 10.80000/x is gone: the server has no record of this key"]
        );
        let other = Holdings {
            record: record("9"),
            files: Vec::new(),
        };
        assert_eq!(
            other.discrepancies(&doc, "7"),
            [Discrepancy::OtherRecord {
                recorded: "7".into(),
                found: "9".into()
            }]
        );
    }
}
