//! ROR identifiers (the Research Organization Registry): how an organisation, a funder or a
//! creator's affiliation, is named unambiguously.
//!
//! A ROR id is `0`, six characters of Crockford's base 32 (digits and letters, without i, l,
//! o and u) and two check digits (ISO 7064 MOD 97-10 over the six characters' value), written
//! bare (`02en5vm52`) or as its address (`https://ror.org/02en5vm52`). Lodge keys it as its
//! address, in lower case, and checks its check digits, so a mistyped id is caught before
//! anything is sent instead of linking a dataset to the wrong organisation, or to none.

/// A ROR as it is written in the examples of messages.
pub const EXAMPLE: &str = "https://ror.org/02en5vm52";

/// Crockford's base 32 digits, in their order.
const DIGITS: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Why a text is not a ROR id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RorProblem {
    /// Not written as one: not `0`, six base-32 characters and two digits.
    NotOne,
    /// Written as one, but its check digits do not match its other characters (a typo).
    CheckDigits,
}

impl RorProblem {
    /// Why `said` is refused, worded for the person who fixes it.
    pub fn explain(self, said: &str) -> String {
        match self {
            RorProblem::NotOne => format!(
                "'{said}' is not a ROR id: one is 0, six letters or digits and two check \
                 digits, as in {EXAMPLE} (find it at https://ror.org)"
            ),
            RorProblem::CheckDigits => format!(
                "'{said}' is not a ROR id: its last two digits do not match the rest, so a \
                 character is mistyped (look it up at https://ror.org)"
            ),
        }
    }
}

/// `text` (a ROR id bare or as a ror.org address, in any case) as its address,
/// `https://ror.org/` and the id in lower case.
pub fn ror_address(text: &str) -> Result<String, RorProblem> {
    let lower = text.trim().to_ascii_lowercase();
    let id = ["https://ror.org/", "http://ror.org/", "ror.org/"]
        .iter()
        .find_map(|prefix| lower.strip_prefix(prefix))
        .unwrap_or(&lower);
    let id = id.strip_suffix('/').unwrap_or(id);
    // ASCII first: the slices below are of bytes.
    let shaped = id.is_ascii()
        && id.len() == 9
        && id.starts_with('0')
        && id[1..7].bytes().all(|b| DIGITS.contains(&b))
        && id[7..].bytes().all(|b| b.is_ascii_digit());
    if !shaped {
        return Err(RorProblem::NotOne);
    }
    let value = id[1..7].bytes().fold(0u64, |value, b| {
        let digit = DIGITS.iter().position(|d| *d == b).unwrap_or(0) as u64;
        value * 32 + digit
    });
    let check = 98 - (value * 100) % 97;
    match id[7..].parse::<u64>() == Ok(check) {
        true => Ok(format!("https://ror.org/{id}")),
        false => Err(RorProblem::CheckDigits),
    }
}

/// The id of a ROR address (`02en5vm52` of `https://ror.org/02en5vm52`), as InvenioRDM's
/// vocabularies name an organisation.
pub fn ror_id(address: &str) -> &str {
    address.rsplit('/').next().unwrap_or(address)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_ror_ids_in_any_spelling_are_keyed_as_their_address() {
        for (given, keyed) in [
            ("02en5vm52", "https://ror.org/02en5vm52"),
            ("https://ror.org/01ggx4157", "https://ror.org/01ggx4157"),
            ("HTTP://ROR.ORG/05A28RW58/", "https://ror.org/05a28rw58"),
            (" ror.org/00k4n6c32 ", "https://ror.org/00k4n6c32"),
            ("021nxhr62", "https://ror.org/021nxhr62"),
        ] {
            assert_eq!(ror_address(given).as_deref(), Ok(keyed), "{given}");
            assert_eq!(ror_address(keyed).as_deref(), Ok(keyed), "read back");
        }
        assert_eq!(ror_id("https://ror.org/02en5vm52"), "02en5vm52");
    }

    #[test]
    fn a_mistyped_character_or_check_digit_is_caught() {
        // One character changed, two swapped, a check digit changed.
        for typo in ["02en5vn52", "02ne5vm52", "02en5vm53", "01ggx4175"] {
            assert_eq!(ror_address(typo), Err(RorProblem::CheckDigits), "{typo}");
        }
        let why = RorProblem::CheckDigits.explain("02en5vm53");
        assert!(
            why.contains("'02en5vm53'") && why.contains("mistyped"),
            "{why}"
        );
    }

    #[test]
    fn text_not_shaped_as_a_ror_id_is_not_one() {
        // Too short, not starting with 0, a letter Crockford leaves out (l), letters where
        // the check digits go, another site's address, a name.
        for text in [
            "",
            "02en5vm5",
            "12en5vm52",
            "02el5vm52",
            "02en5vmab",
            "https://example.org/02en5vm52",
            "Sorbonne Université",
            "0é2en5vm52",
            "0abcdeé5",
        ] {
            assert_eq!(ror_address(text), Err(RorProblem::NotOne), "{text:?}");
        }
        assert!(RorProblem::NotOne.explain("x").contains(EXAMPLE));
    }
}
