//! Dates of a dataset other than its publication: when its data were collected, when it was
//! created, until when it is valid. Each is a DataCite date type and a date or a range of
//! dates (`2025-03-01/2025-06-30`); the targets send them as DataCite's `dates` and
//! InvenioRDM's `dates`. Like all metadata they take part in the content key; a dataset
//! with none keys as it always did.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::is_calendar_date;

/// DataCite's date types (schema 4.3, which InvenioRDM's date types vocabulary follows, its
/// ids the same names in lower case), as DataCite spells them.
pub const DATE_TYPES: &[&str] = &[
    "Accepted",
    "Available",
    "Copyrighted",
    "Collected",
    "Created",
    "Issued",
    "Submitted",
    "Updated",
    "Valid",
    "Withdrawn",
    "Other",
];

/// How a date is written on the command line and in the window.
pub const EXAMPLE: &str = "Collected 2025-03-01/2025-06-30";

/// One date of the dataset, and what happened then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetDate {
    /// What the date is of: one of [`DATE_TYPES`] (`Collected`: the data were collected
    /// then).
    pub date_type: String,
    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, or two of them joined by `/` for a range.
    pub date: String,
}

impl DatasetDate {
    /// `"Collected 2025-03-01/2025-06-30"`: a date type, then (after spaces) the date or
    /// range. Either may still be wrong (see [`DatasetDate::problem`]); only a text without
    /// both parts is refused here.
    pub fn parse(text: &str) -> Result<DatasetDate, String> {
        let text = text.trim();
        match text.split_once(char::is_whitespace) {
            Some((date_type, date)) if !date.trim().is_empty() => Ok(DatasetDate {
                date_type: date_type.to_string(),
                date: date.to_string(),
            }
            .normalized()),
            _ => Err(format!(
                "'{text}' is not a date: write the date type, then the date or range, e.g. \
                 \"{EXAMPLE}\""
            )),
        }
    }

    /// The keyed form: the type as DataCite spells it (when it is one, in any case), the
    /// date trimmed on each side of a range's `/` (`2025-03-01 / 2025-06-30` is
    /// `2025-03-01/2025-06-30`), in NFC.
    pub fn normalized(&self) -> DatasetDate {
        let date_type: String = self.date_type.trim().nfc().collect();
        let date_type = DATE_TYPES
            .iter()
            .find(|t| t.eq_ignore_ascii_case(&date_type))
            .map_or(date_type, |t| t.to_string());
        let date: String = self.date.nfc().collect();
        let date = date.split('/').map(str::trim).collect::<Vec<_>>().join("/");
        DatasetDate { date_type, date }
    }

    /// What is wrong with it, worded for the person who fixes it; `None` when it can be
    /// sent.
    pub fn problem(&self) -> Option<String> {
        let d = self.normalized();
        if d.date_type.is_empty() || d.date.is_empty() {
            return Some(format!(
                "'{}' needs a date type and a date, e.g. \"{EXAMPLE}\"",
                d.describe()
            ));
        }
        // A mistyped type and a date that is none are both said, not one per fix.
        let date_problem = d.date_problem();
        if !DATE_TYPES.contains(&d.date_type.as_str()) {
            let hint = match crate::wording::closest(&d.date_type, DATE_TYPES.iter().copied(), 0.7)
            {
                Some(close) => format!("did you mean {close}?"),
                None => "for example Collected (when the data were collected), Created or \
                         Valid"
                    .to_string(),
            };
            let type_problem = format!("'{}' is not a DataCite date type: {hint}", d.date_type);
            return Some(match date_problem {
                Some(also) => format!("{type_problem}; and {also}"),
                None => type_problem,
            });
        }
        date_problem
    }

    /// What is wrong with its date alone (normalised already).
    fn date_problem(&self) -> Option<String> {
        let d = self;
        let ends: Vec<&str> = d.date.split('/').collect();
        let readable = ends.len() <= 2 && ends.iter().all(|end| is_partial_date(end));
        if !readable {
            return Some(format!(
                "'{}' is not a date: write YYYY, YYYY-MM or YYYY-MM-DD, or two of them with \
                 '/' between for a range (2025-03-01/2025-06-30)",
                d.date
            ));
        }
        // Compared as far as both go: 2025-06-15/2025-06 ends with June, as it should.
        if let [start, end] = ends[..]
            && start[..start.len().min(end.len())] > end[..start.len().min(end.len())]
        {
            return Some(format!(
                "'{}' ends before it starts: write the earlier date first",
                d.date
            ));
        }
        None
    }

    /// As it is written, with the date type DataCite most likely meant in place of a
    /// mistyped one (`Colected 2025` → `Collected 2025`); `None` when its type is not
    /// mistyped.
    pub fn with_type_corrected(&self) -> Option<String> {
        let d = self.normalized();
        if d.date_type.is_empty() || DATE_TYPES.contains(&d.date_type.as_str()) {
            return None;
        }
        let meant = crate::wording::closest(&d.date_type, DATE_TYPES.iter().copied(), 0.7)?;
        let corrected = DatasetDate {
            date_type: meant.to_string(),
            ..d
        };
        // Offered only as a fix that is one: with its date wrong too, it is not.
        corrected.problem().is_none().then(|| corrected.describe())
    }

    /// As it is written: `Collected 2025-03-01/2025-06-30`.
    pub fn describe(&self) -> String {
        format!("{} {}", self.date_type.trim(), self.date.trim())
            .trim()
            .to_string()
    }
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, each a real year, month or calendar day (years 1000 to
/// 9999, as a publication year).
fn is_partial_date(text: &str) -> bool {
    let year_ok = |y: &str| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()) && y >= "1000";
    if !text.is_ascii() {
        return false;
    }
    match text.len() {
        4 => year_ok(text),
        7 => {
            let (year, month) = (&text[..4], &text[4..]);
            year_ok(year) && is_calendar_date(&format!("{year}{month}-01"))
        }
        10 => year_ok(&text[..4]) && is_calendar_date(text),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(date_type: &str, date: &str) -> DatasetDate {
        DatasetDate {
            date_type: date_type.into(),
            date: date.into(),
        }
    }

    #[test]
    fn a_date_is_a_type_then_a_date_or_a_range() {
        let d = DatasetDate::parse("  collected  2025-03-01 / 2025-06-30 ").unwrap();
        assert_eq!(d, date("Collected", "2025-03-01/2025-06-30"));
        assert_eq!(d.describe(), "Collected 2025-03-01/2025-06-30");
        assert_eq!(DatasetDate::parse(&d.describe()).unwrap(), d, "read back");
        for refused in ["", "Collected", "  2025-03-01 "] {
            let why = DatasetDate::parse(refused).unwrap_err();
            assert!(why.contains(EXAMPLE), "{refused:?}: {why}");
        }
    }

    #[test]
    fn years_months_days_and_ranges_of_them_are_dates() {
        for ok in [
            "2025",
            "2025-03",
            "2025-03-01",
            "2024-02-29",
            "2020/2025",
            "2025-03/2025-06-30",
        ] {
            assert_eq!(date("Created", ok).problem(), None, "{ok}");
        }
        for bad in [
            "25",
            "2025-13",
            "2025-02-29",
            "2025-3-1",
            "0999",
            "spring 2025",
            "2020/2021/2022",
            "2025/",
        ] {
            let why = date("Created", bad).problem().unwrap();
            assert!(why.contains("is not a date"), "{bad}: {why}");
        }
        assert_eq!(date("Collected", "2025-06-15/2025-06").problem(), None);
        assert!(date("Created", "2é25").problem().is_some());
        let why = date("Collected", "2025-06-30/2025-03-01")
            .problem()
            .unwrap();
        assert!(why.contains("ends before it starts"), "{why}");
    }

    #[test]
    fn an_unknown_date_type_is_a_problem_with_the_one_most_likely_meant() {
        let both = date("Colected", "2025-13-01").problem().unwrap();
        assert!(
            both.contains("did you mean Collected?; and '2025-13-01' is not a date"),
            "{both}"
        );
        assert_eq!(date("Colected", "2025-13-01").with_type_corrected(), None);
        let why = date("Colected", "2025").problem().unwrap();
        assert!(
            why.contains("'Colected' is not a DataCite date type: did you mean Collected?"),
            "{why}"
        );
        let why = date("Harvest", "2025").problem().unwrap();
        assert!(why.contains("for example Collected"), "{why}");
        let why = date("", "2025").problem().unwrap();
        assert!(why.contains("needs a date type and a date"), "{why}");
    }

    #[test]
    fn normalising_twice_changes_nothing() {
        let d = date(" VALID ", " 2025 /\t2026 ").normalized();
        assert_eq!(d, date("Valid", "2025/2026"));
        assert_eq!(d.normalized(), d);
    }
}
