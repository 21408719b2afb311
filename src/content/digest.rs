//! Fixed-size SHA-256 values with the names that say what they identify.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A SHA-256 digest written as 64 lowercase hex characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Hex(pub [u8; 32]);

impl Sha256Hex {
    /// Digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        Sha256Hex(sha2::Sha256::digest(bytes).into())
    }

    pub fn to_hex(&self) -> String {
        self.write_hex(&mut [0; 64]).to_owned()
    }

    /// The 64 hex characters, written into `out`. (`hex::encode` goes a character at a
    /// time through an iterator: a key is written out several times per deposit, and that
    /// cost the store about 4% of its instructions.)
    fn write_hex<'a>(&self, out: &'a mut [u8; 64]) -> &'a str {
        hex::encode_to_slice(self.0, out).expect("32 bytes make 64 hex characters");
        std::str::from_utf8(out).expect("hex digits are ASCII")
    }
}

impl fmt::Display for Sha256Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.write_hex(&mut [0; 64]))
    }
}

impl fmt::Debug for Sha256Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a string is not a SHA-256 hex digest.
#[derive(Debug, thiserror::Error)]
#[error("'{text}' is not a SHA-256 digest: expected 64 hex characters (0-9, a-f)")]
pub struct BadDigest {
    pub text: String,
}

impl FromStr for Sha256Hex {
    type Err = BadDigest;
    fn from_str(s: &str) -> Result<Self, BadDigest> {
        let bad = || BadDigest {
            text: s.to_string(),
        };
        if s.len() != 64 {
            return Err(bad());
        }
        // Either case is read (the hex crate reads both); the key is written in lowercase.
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| bad())?;
        Ok(Sha256Hex(out))
    }
}

impl Serialize for Sha256Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Sha256Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

macro_rules! named_digest {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Sha256Hex);

        impl $name {
            /// The first 12 hex characters, for tables and log lines.
            pub fn short(&self) -> String {
                self.0.to_hex()[..12].to_string()
            }
            pub fn to_hex(&self) -> String {
                self.0.to_hex()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.short())
            }
        }

        impl FromStr for $name {
            type Err = BadDigest;
            fn from_str(s: &str) -> Result<Self, BadDigest> {
                s.parse().map($name)
            }
        }
    };
}

named_digest!(
    /// The idempotency key of a deposit: SHA-256 over the canonical encoding of the manifest
    /// and the metadata. Same content, same key, on every machine and in every run.
    ContentKey
);

named_digest!(
    /// SHA-256 over the canonical encoding of the manifest alone: equal fingerprints mean the
    /// same data, whatever metadata it was deposited with.
    DataFingerprint
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_written_as_64_lowercase_hex_characters_and_read_back_in_either_case() {
        let digest = Sha256Hex::of(b"lodge");
        let hex = "cb610bc1048f7abce1a9a81a5cdb9b63b2add68c8bf5a4616e5eb8ea27b9e7ba";
        assert_eq!(digest.to_hex(), hex, "sha256sum's digest of 'lodge'");
        assert_eq!(digest.to_string(), hex);
        assert_eq!(format!("{digest:?}"), hex);
        assert_eq!(hex.parse::<Sha256Hex>().unwrap(), digest);
        assert_eq!(
            hex.to_ascii_uppercase().parse::<Sha256Hex>().unwrap(),
            digest
        );
        assert!(hex[..63].parse::<Sha256Hex>().is_err(), "too short");
        assert!(
            hex.replace('c', "g").parse::<Sha256Hex>().is_err(),
            "not hex"
        );
    }
}
