//! Content: from a folder on disk to a manifest, canonical metadata and a content key.
//!
//! Everything here is pure with respect to the network and the job queue: given the same files
//! and the same metadata it produces the same [`ContentKey`] on any machine, in any run
//! (invariant 1 in DEVELOPERS.md). The hash cache is reached only through the [`HashCache`]
//! trait so that this module does not depend on the store.

mod affiliation;
mod cff_as_written;
mod citation;
mod community;
mod contributor;
mod dataset;
mod dates;
mod digest;
mod document;
mod error;
mod funding;
mod hash;
mod labelled;
mod language;
mod left_out;
mod license;
mod location;
mod metadata;
mod person_name;
mod prefill;
mod related;
mod ror;
mod scan;
mod title_template;

pub use affiliation::{Affiliation, affiliation_field};
pub use citation::citation;
pub use community::{EXAMPLE as COMMUNITY_EXAMPLE, community_name, community_problem};
pub use contributor::{CONTRIBUTOR_ROLES, Contributor, EXAMPLE as CONTRIBUTOR_EXAMPLE};
pub use dataset::{PreparedDataset, prepare_dataset, prepare_scanned};
pub use dates::{DATE_TYPES, DatasetDate, EXAMPLE as DATE_EXAMPLE};
pub use digest::{ContentKey, DataFingerprint, Sha256Hex};
pub use document::{
    ContentDocument, DocumentChanges, ENCODING_VERSION, MAX_KEYED_SIZE, ManifestEntry,
};
pub use error::ContentError;
pub use funding::{EXAMPLE as FUNDING_EXAMPLE, FunderScheme, Funding, funder_identifier};
pub use hash::{
    FileStamp, HASH_BUFFER_BYTES, HashCache, HashProgress, HashWatch, HashedFile, MemoryHashCache,
    NoHashCache, hash_files, sha256_reader,
};
pub use language::{
    EXAMPLE as LANGUAGE_EXAMPLE, datacite_language, keyed_language, language_name,
    language_problem, language_shown,
};
pub use left_out::left_out_since_scan;
pub use license::{is_license_choice, spdx_license_id, spdx_suggestion};
pub use location::{EXAMPLE as LOCATION_EXAMPLE, GeoBox, Location};
pub use metadata::{
    Creator, FieldProblem, FileAccess, Metadata, PUBLICATION_YEARS, RESOURCE_TYPES,
    is_calendar_date, this_year, today,
};
pub use person_name::{as_person, has_organisation_word};
pub use prefill::{
    CITATION_CFF, KeptAccess, UNSENT_GRANTS, ZENODO_JSON, access_kept_by_folder, citation_notes,
    dois_cited, fields_not_carried, metadata_from_folder, organisation_author_notes,
    parse_citation_cff, parse_zenodo_json, references_not_sent, release_day_note,
    unsent_reference_notes, zenodo_json_beside_note,
};
pub use related::{IdentifierScheme, RELATION_TYPES, RelatedWork};
pub use ror::{EXAMPLE as ROR_EXAMPLE, RorProblem, ror_address, ror_id};
pub use scan::{
    IGNORE_FILE_NAME, ScanReport, ScannedFile, SkipReason, SkippedEntry, case_collision_note,
    case_collisions, folder_opens, on_disk, scan_folder, scan_folder_leaving_out,
};
pub use title_template::{FOLDER_PLACEHOLDER, template_problem, title_for_folder};
