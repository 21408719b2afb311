//! Why a folder could not be turned into a dataset: every error names the path it is about
//! and says what to do about it.

use std::io;
use std::path::PathBuf;

/// An error from scanning, hashing or reading the metadata of a dataset folder.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error(
        "{} is not a folder, or no longer exists: give the folder that holds the dataset's \
         files (if it was moved, add it where it is now)",
        path.display()
    )]
    NotAFolder { path: PathBuf },

    #[error(
        "{} has no files to deposit (after skipping symlinks, system files and .lodgeignore \
         matches): put the data files in it or check its .lodgeignore",
        path.display()
    )]
    EmptyFolder { path: PathBuf },

    #[error(
        "'{path}' has a name that is not valid UTF-8: rename it (repositories need \
         Unicode file names), then add the dataset's folder again"
    )]
    NonUtf8Name {
        /// The path, with invalid bytes shown as U+FFFD.
        path: String,
    },

    #[error(
        "'{path}' has a name with {what}, which repositories refuse or cannot show in a \
         path: rename it, then add the dataset's folder again"
    )]
    UnusableName {
        path: String,
        /// What is wrong in it ("a backslash", "a control character").
        what: &'static str,
    },

    #[error(
        "{} files in {} have names a deposit cannot carry; rename each, then add the \
         folder again:\n  {}",
        each.len(),
        root.display(),
        each.join("\n  ")
    )]
    UnusableNames {
        root: PathBuf,
        /// Each file's own refusal ([`ContentError::UnusableName`],
        /// [`ContentError::NonUtf8Name`]), in the order of their paths.
        each: Vec<String>,
    },

    #[error(
        "'{rel_path}' appears twice once names are put in Unicode NFC: {} and {} differ \
         only in how accented letters are encoded; rename or remove one of them",
        first.display(),
        second.display()
    )]
    NormalizationClash {
        /// The shared NFC relative path.
        rel_path: String,
        first: PathBuf,
        second: PathBuf,
    },

    #[error(
        "cannot read {}: {}; {}",
        path.display(),
        crate::wording::io_cause(source),
        unreadable_fix(source)
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// Several files or folders of one dataset cannot be read: each is named, with its
    /// cause and fix, so that one round of fixes does for all of them.
    #[error(
        "{} files or folders in {} cannot be read; fix each, then try again:\n  {}",
        each.len(),
        root.display(),
        each.join("\n  ")
    )]
    UnreadableEntries {
        root: PathBuf,
        /// Each one's own [`ContentError::Unreadable`], in the order of their paths.
        each: Vec<String>,
    },

    /// The dataset's own folder exists but cannot be listed: nothing in it can be read,
    /// and taking it out of itself is no fix.
    #[error(
        "cannot open the folder {}: {}; {}",
        path.display(),
        crate::wording::io_cause(source),
        unopenable_folder_fix(source)
    )]
    UnopenableFolder {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error(
        "{} changed or was removed while it was being hashed: wait until nothing writes to \
         the folder and rescan",
        path.display()
    )]
    ChangedWhileHashing { path: PathBuf },

    #[error("hashing was stopped before it ended: nothing of this scan was recorded")]
    Cancelled,

    #[error("{} is not a usable ignore file: {message}; fix the pattern and scan again", path.display())]
    BadIgnoreFile { path: PathBuf, message: String },

    #[error(
        "{} could not be read as citation metadata: {message}; fix the file and add the folder \
         again, or enter the metadata by hand (whether the file is deposited does not change)",
        path.display()
    )]
    BadCitation { path: PathBuf, message: String },
}

impl ContentError {
    /// One error for the files and folders of the dataset at `root` that could not be read
    /// (`first` and `more`, each with its path), in the order of their paths: the one error
    /// itself when there is one, [`ContentError::UnreadableEntries`] when there are more.
    pub fn unreadable_together(
        root: &std::path::Path,
        first: (PathBuf, ContentError),
        mut more: Vec<(PathBuf, ContentError)>,
    ) -> ContentError {
        more.push(first);
        more.sort_by(|a, b| a.0.cmp(&b.0));
        more.dedup_by(|a, b| a.0 == b.0);
        if more.len() == 1 {
            return more.remove(0).1;
        }
        ContentError::UnreadableEntries {
            root: root.to_path_buf(),
            each: more.into_iter().map(|(_, e)| e.to_string()).collect(),
        }
    }
}

/// What makes a file readable again, for the cause `source` it could not be read.
fn unreadable_fix(source: &io::Error) -> &'static str {
    match source.kind() {
        io::ErrorKind::InvalidFilename => {
            "shorten its name or the names of the folders above it, or remove it from the folder"
        }
        io::ErrorKind::PermissionDenied => {
            "fix its permissions, or leave it out of the dataset (a line naming it in the \
             folder's .lodgeignore), or remove it from the folder"
        }
        _ => "make it readable (its permissions, its disk) or remove it from the folder",
    }
}

/// What lets Lodge list a dataset's folder again, for the cause `source` it could not.
fn unopenable_folder_fix(source: &io::Error) -> &'static str {
    match source.kind() {
        io::ErrorKind::PermissionDenied => {
            "give your user permission to list it (`chmod u+rx` on it, or ask its owner), \
             then try again"
        }
        _ => "check that the disk it is on is connected and readable, then try again",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_is_given_the_fix_for_its_cause() {
        let said = |errno: i32| {
            ContentError::Unreadable {
                path: PathBuf::from("/data/ds/a.csv"),
                source: io::Error::from_raw_os_error(errno),
            }
            .to_string()
        };
        let (denied, too_long) = (rustix::io::Errno::ACCESS, rustix::io::Errno::NAMETOOLONG);
        assert!(said(denied.raw_os_error()).ends_with(
            "fix its permissions, or leave it out of the dataset (a line naming it in the \
             folder's .lodgeignore), or remove it from the folder"
        ));
        let long = said(too_long.raw_os_error());
        assert!(
            long.contains("shorten its name or the names of the folders above it"),
            "{long}"
        );
        assert!(!long.contains("permissions"), "{long}");
    }
}
