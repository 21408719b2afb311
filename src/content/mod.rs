//! Content: from a folder on disk to a manifest, canonical metadata and a content key.
//!
//! Everything here is pure with respect to the network and the job queue: given the same files
//! and the same metadata it produces the same [`ContentKey`] on any machine, in any run
//! (invariant 1 in DEVELOPERS.md). The hash cache is reached only through the [`HashCache`]
//! trait so that this module does not depend on the store.

mod digest;
mod document;
mod metadata;

pub use digest::{ContentKey, DataFingerprint, Sha256Hex};
pub use document::{ContentDocument, ENCODING_VERSION, ManifestEntry};
pub use metadata::{Creator, FieldProblem, Metadata};
