//! The deposit history as a file: the CSV and JSON of `lodge history --csv|--json` and of
//! the window's Export, written in one place so the two say the same.

use std::collections::HashMap;
use std::time::{Duration, UNIX_EPOCH};

use crate::store::{HistoryRow, Store, StoreError};

/// The history as both write it: the jobs' stored rows, which of them are of a dataset
/// removed from the list since (named as its removal logged it), and the names the targets
/// are saved under.
pub struct HistoryFile {
    rows: Vec<HistoryRow>,
    removed: Vec<bool>,
    target_names: HashMap<String, String>,
    /// Each landed row's deposit's latest check (`lodge verify`, the window's Verify), if
    /// it was ever checked: a deposit found damaged since is not reported as only landed.
    checks: Vec<Option<crate::store::EventRow>>,
}

impl HistoryFile {
    /// `rows` of `store`'s history, a removed dataset's named as its removal logged it;
    /// `target_names` the saved targets' names by identity ([`crate::config::saved_target_names`]).
    pub fn of(
        store: &Store,
        mut rows: Vec<HistoryRow>,
        target_names: HashMap<String, String>,
    ) -> Result<HistoryFile, StoreError> {
        let removed: Vec<bool> = rows.iter().map(|r| r.name.is_none()).collect();
        if removed.iter().any(|r| *r) {
            let names: HashMap<i64, String> = store
                .removed_datasets()?
                .into_iter()
                .map(|r| (r.id, r.name))
                .collect();
            for r in rows.iter_mut().filter(|r| r.name.is_none()) {
                r.name = r.dataset.and_then(|id| names.get(&id).cloned());
            }
        }
        let mut latest: HashMap<(String, String), crate::store::EventRow> = HashMap::new();
        for check in store.latest_checks()? {
            if let (Some(target), Some(key)) = (check.target.clone(), check.content_key.clone()) {
                latest.insert((target, key), check);
            }
        }
        let checks = (rows.iter())
            .map(|r| {
                let landed = matches!(r.state.as_str(), "deposited" | "existing");
                landed
                    .then(|| latest.get(&(r.target.clone(), r.key.clone())).cloned())
                    .flatten()
            })
            .collect();
        Ok(HistoryFile {
            rows,
            removed,
            target_names,
            checks,
        })
    }

    /// The rows, a removed dataset's named as its removal logged it.
    pub fn rows(&self) -> &[HistoryRow] {
        &self.rows
    }

    /// Whether the dataset of the `i`th row was removed from the list.
    pub fn removed(&self, i: usize) -> bool {
        self.removed[i]
    }

    /// As JSON ([`to_json`]), each job with `removed` and `target_name` (or null).
    pub fn to_json(&self) -> serde_json::Result<serde_json::Value> {
        let mut json = to_json(&self.rows)?;
        if let Some(jobs) = json.as_array_mut() {
            for (((job, removed), r), check) in (jobs.iter_mut())
                .zip(&self.removed)
                .zip(&self.rows)
                .zip(&self.checks)
            {
                job["removed"] = (*removed).into();
                job["target_name"] = self.target_names.get(&r.target).cloned().into();
                job["last_check"] = check.as_ref().and_then(check_json).into();
            }
        }
        Ok(json)
    }

    /// As CSV ([`write_csv`]), a removed dataset's name followed by "(removed)", and each
    /// landed deposit's latest check in `last_check`.
    pub fn write_csv(&self, out: impl std::io::Write) -> Result<(), csv::Error> {
        let rows: Vec<HistoryRow> = self
            .rows
            .iter()
            .zip(&self.removed)
            .map(|(r, removed)| HistoryRow {
                name: match removed {
                    true => r.name.as_ref().map(|n| format!("{n} (removed)")),
                    false => r.name.clone(),
                },
                ..r.clone()
            })
            .collect();
        let checks: Vec<String> = (self.checks.iter())
            .map(|check| check.as_ref().map(check_text).unwrap_or_default())
            .collect();
        write_csv_checked(&rows, &checks, out)
    }
}

/// A deposit's latest check (a `verified` or `damaged` event) for the JSON of the history,
/// `status` and `show`: when, its verdict and what it found; `None` for any other event.
pub fn check_json(check: &crate::store::EventRow) -> Option<serde_json::Value> {
    let (intact, found) = crate::engine::verify::verdict_of(check)?;
    Some(serde_json::json!({
        "at": time_text(check.at),
        "verdict": if intact { "intact" } else { "damaged" },
        "found": found,
    }))
}

/// A deposit's latest check for the CSV's `last_check`: "intact 2026-…: 3 files, …" or
/// "damaged 2026-…: data.csv is missing".
fn check_text(check: &crate::store::EventRow) -> String {
    match crate::engine::verify::verdict_of(check) {
        Some((intact, found)) => format!(
            "{} {}: {found}",
            if intact { "intact" } else { "damaged" },
            time_text(check.at)
        ),
        None => String::new(),
    }
}

/// The CSV's columns, in order.
pub const CSV_COLUMNS: [&str; 16] = [
    "job",
    "dataset",
    "name",
    "title",
    "target",
    "key",
    "state",
    "identifier",
    "url",
    "attempts",
    "last_error",
    // Times as text: named as the JSON's text times, whose `*_at` are milliseconds.
    "created",
    "updated",
    "dismissed",
    "queued_by",
    // Written by [`HistoryFile::write_csv`]; empty from [`write_csv`] alone.
    "last_check",
];

/// Write `rows` as CSV to `out`, a header first, times as RFC 3339 text. A text cell that a
/// spreadsheet would run as a formula (one beginning with `=`, `+`, `-`, `@`, a tab or a
/// carriage return: a title `=HYPERLINK(...)`, say) gets a leading `'`, which spreadsheets
/// show as text.
pub fn write_csv(rows: &[HistoryRow], out: impl std::io::Write) -> Result<(), csv::Error> {
    write_csv_checked(rows, &[], out)
}

/// [`write_csv`] with each row's `last_check` cell (`checks`, by row; missing ones empty).
fn write_csv_checked(
    rows: &[HistoryRow],
    checks: &[String],
    out: impl std::io::Write,
) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_COLUMNS)?;
    let text = |s: &Option<String>| as_text_cell(s.as_deref().unwrap_or_default());
    for (i, r) in rows.iter().enumerate() {
        w.write_record([
            r.job.to_string(),
            r.dataset.map(|d| d.to_string()).unwrap_or_default(),
            text(&r.name),
            text(&r.title),
            as_text_cell(&r.target),
            r.key.clone(),
            r.state.clone(),
            text(&r.identifier),
            text(&r.url),
            r.attempts.to_string(),
            text(&r.last_error),
            time_text(r.created_at),
            time_text(r.updated_at),
            r.dismissed_at.map(time_text).unwrap_or_default(),
            text(&r.queued_by),
            as_text_cell(checks.get(i).map(String::as_str).unwrap_or_default()),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// `rows` as JSON: each row's fields (times in milliseconds since 1970, as stored), and its
/// times as text too (`created`, `updated`, `dismissed`), as the CSV writes them.
pub fn to_json(rows: &[HistoryRow]) -> serde_json::Result<serde_json::Value> {
    rows.iter()
        .map(|r| {
            let mut row = serde_json::to_value(r)?;
            row["created"] = time_text(r.created_at).into();
            row["updated"] = time_text(r.updated_at).into();
            row["dismissed"] = r.dismissed_at.map(time_text).into();
            Ok(row)
        })
        .collect::<serde_json::Result<Vec<_>>>()
        .map(serde_json::Value::Array)
}

/// A time (ms since 1970) as RFC 3339 text, to the second, in UTC.
pub fn time_text(ms: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

fn as_text_cell(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(title: &str) -> HistoryRow {
        HistoryRow {
            job: 7,
            dataset: Some(3),
            name: Some("ocean, temps".into()),
            title: Some(title.into()),
            target: "sandbox+http://127.0.0.1:1".into(),
            key: "ab".repeat(32),
            state: "deposited".into(),
            identifier: Some("sbx-000007".into()),
            url: None,
            attempts: 1,
            last_error: None,
            created_at: 1_796_000_000_000,
            updated_at: 1_796_000_001_000,
            dismissed_at: None,
            queued_by: Some("ada@lab-1".into()),
        }
    }

    #[test]
    fn a_formula_in_a_cell_is_written_as_text_and_the_rest_as_given() {
        let mut out = Vec::new();
        let rows = [
            row("=HYPERLINK(\"http://evil\",\"x\")"),
            row("-80 m, \"deep\""),
        ];
        write_csv(&rows, &mut out).unwrap();
        let mut read = csv::Reader::from_reader(out.as_slice());
        assert_eq!(read.headers().unwrap(), CSV_COLUMNS.as_slice());
        let records: Vec<csv::StringRecord> = read.records().map(Result::unwrap).collect();
        assert_eq!(&records[0][3], "'=HYPERLINK(\"http://evil\",\"x\")");
        assert_eq!(&records[1][3], "'-80 m, \"deep\"");
        assert_eq!(&records[0][2], "ocean, temps");
        assert_eq!(&records[0][11], "2026-11-30T00:53:20Z");
        // The text time has the JSON's text time's name: `created_at` is milliseconds there.
        assert_eq!(&read.headers().unwrap()[11], "created");
    }

    #[test]
    fn json_has_the_stored_times_and_the_csvs() {
        let json = to_json(&[row("T")]).unwrap();
        assert_eq!(json[0]["created_at"], 1_796_000_000_000_i64);
        assert_eq!(json[0]["created"], "2026-11-30T00:53:20Z");
        assert_eq!(json[0]["updated"], "2026-11-30T00:53:21Z");
    }
}
