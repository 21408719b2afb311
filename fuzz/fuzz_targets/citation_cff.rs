//! CITATION.cff text (YAML) -> metadata: never a panic; what is accepted passes the metadata
//! properties of `lodge_fuzz::check_metadata`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(metadata) = lodge::content::parse_citation_cff(text) {
        lodge_fuzz::check_metadata(&metadata);
    }
});
