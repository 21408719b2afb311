//! DOIs derived from content keys, in DataCite's own suffix style.
//!
//! DataCite's generated suffixes are 8 characters of lowercase Crockford base32 split as
//! `xxxx-xxxx`, the last two being ISO 7064 mod 97-10 check digits over the number the first
//! six encode (the scheme of DataCite's base32-url). Lodge takes that number from the leading
//! 30 bits of the content key instead of from a random source, so one dataset can only ever
//! be given one DOI by Lodge: a retry, a crash or a second machine computes the same one.
//!
//! Thirty bits is DataCite's format, not a choice of ours; two different keys can share a
//! suffix (about one chance in two thousand among a thousand datasets under one prefix).
//! That is caught, never papered over: the server says the DOI is taken, Lodge reads it
//! back, sees another key, and stops with a conflict for a person to resolve.

use crate::content::ContentKey;

/// Crockford's alphabet, lowercase: no i, l, o or u.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// ISO 7064 mod 97-10 check value as DataCite computes it: `97 - (100 n mod 97) + 1`.
pub fn check_digits(number: u64) -> u64 {
    97 - ((100 * number as u128) % 97) as u64 + 1
}

/// The 30-bit number a key's suffix encodes.
pub fn suffix_number(key: &ContentKey) -> u64 {
    let bytes = key.0.0;
    let leading = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    u64::from(leading >> 2)
}

/// Six base32 characters of `number` (< 2^30) and its two check digits: `xxxx-xx99`.
pub fn encode_suffix(number: u64) -> String {
    let mut chars = [b'0'; 6];
    let mut n = number;
    for c in chars.iter_mut().rev() {
        *c = ALPHABET[(n % 32) as usize];
        n /= 32;
    }
    let body = std::str::from_utf8(&chars).expect("ASCII alphabet");
    let plain = format!("{body}{:02}", check_digits(number));
    format!("{}-{}", &plain[..4], &plain[4..])
}

/// The DOI Lodge gives the dataset with `key` under `prefix`.
pub fn doi_for(prefix: &str, key: &ContentKey) -> String {
    format!("{prefix}/{}", encode_suffix(suffix_number(key)))
}

/// Whether `suffix` is well formed in this style and its check digits are right.
pub fn suffix_is_valid(suffix: &str) -> bool {
    let plain: String = suffix.chars().filter(|c| *c != '-').collect();
    if plain.len() != 8 {
        return false;
    }
    let (body, check) = plain.split_at(6);
    let mut number = 0u64;
    for c in body.bytes() {
        match ALPHABET.iter().position(|a| *a == c.to_ascii_lowercase()) {
            Some(v) => number = number * 32 + v as u64,
            None => return false,
        }
    }
    check.parse::<u64>().ok() == Some(check_digits(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_match_datacites_base32_url_examples() {
        // base32-url / base32-lib: encode(1234, checksum) == "16j82".
        assert_eq!(check_digits(1234), 82);
        assert_eq!(encode_suffix(1234), "0001-6j82");
    }

    #[test]
    fn suffixes_are_eight_characters_split_in_fours_and_verify() {
        for n in [0u64, 1, 31, 32, 1 << 29, (1 << 30) - 1] {
            let s = encode_suffix(n);
            assert_eq!(s.len(), 9, "{s}");
            assert_eq!(&s[4..5], "-");
            assert!(s.chars().all(|c| c == '-' || ALPHABET.contains(&(c as u8))));
            assert!(suffix_is_valid(&s), "{s}");
        }
        assert!(!suffix_is_valid("0001-6j83"));
        assert!(!suffix_is_valid("0001-6j8"));
        assert!(!suffix_is_valid("0001-6u82"));
    }

    #[test]
    fn the_same_key_always_gives_the_same_doi_and_other_keys_others() {
        let a: ContentKey = "ab".repeat(32).parse().unwrap();
        let b: ContentKey = "cd".repeat(32).parse().unwrap();
        assert_eq!(doi_for("10.80000", &a), doi_for("10.80000", &a));
        assert_ne!(doi_for("10.80000", &a), doi_for("10.80000", &b));
        assert!(doi_for("10.80000", &a).starts_with("10.80000/"));
    }
}
