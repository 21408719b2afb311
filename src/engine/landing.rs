//! The landing page a DataCite target with `landing_from=` gives a dataset's DOI: the
//! record the dataset's deposit to that other target got, read from the store, and told
//! public or a draft. A drafting target's record is a draft until Lodge knows it was
//! published since ([`crate::targets::PublishedRecords`]: by a deposit to the site's
//! publishing target, or found so by `lodge verify`), and from then on its landing page is
//! the published record's public page, not the draft's, which is its owner's.

use crate::content::ContentKey;
use crate::store::{Store, StoreError};
use crate::targets::datacite::Landing;
use crate::targets::{PublishedRecords, scope_makes_drafts};

/// The landing page the record `key`'s deposit to target `from_scope` got gives a DOI, or
/// `None` when that deposit recorded no page (not made yet, or a record without one).
pub fn landing_of(
    store: &Store,
    from_scope: &str,
    key: &ContentKey,
) -> Result<Option<Landing>, StoreError> {
    let Some(result) = store.lookup_result(from_scope, key)? else {
        return Ok(None);
    };
    let Some(url) = result.url else {
        return Ok(None);
    };
    if !scope_makes_drafts(from_scope) {
        return Ok(Some(Landing::Public(url)));
    }
    // What Lodge knows of this key's records: a publishing target's deposit of it (which
    // publishes the draft it finds by the key), and the checks that found the draft
    // published since.
    let results = store.results_for_key(key)?;
    let mut published = PublishedRecords::from_results(
        results
            .iter()
            .map(|r| (r.target.as_str(), r.identifier.as_str(), r.url.as_deref())),
    );
    for record in store.published_drafts_of(from_scope, key)? {
        published.note_published_draft(from_scope, &record);
    }
    let record = result.identifier;
    if published.is_draft(from_scope, Some(&record)) {
        return Ok(Some(Landing::Draft { record, url }));
    }
    let public = published
        .public_url(from_scope, &record)
        .map(str::to_string);
    Ok(Some(Landing::Public(public.unwrap_or(url))))
}
