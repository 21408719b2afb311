//! .zenodo.json text -> metadata: never a panic; what is accepted passes the metadata
//! properties of `lodge_fuzz::check_metadata`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(metadata) = lodge::content::parse_zenodo_json(text) {
        lodge_fuzz::check_metadata(&metadata);
    }
});
