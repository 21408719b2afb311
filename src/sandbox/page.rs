//! `GET /`: a small self-contained HTML page listing the records.

use super::SandboxStats;
use super::db::RecordRow;
use crate::wording::count_of;

/// Escape text for HTML element content and quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page for `records` (the first page of them) out of `total`.
pub(crate) fn index(records: &[RecordRow], total: u64, stats: &SandboxStats) -> String {
    let mut rows = String::new();
    for r in records {
        let key = escape(&r.key);
        rows.push_str(&format!(
            "<tr><td><a href=\"/records/{key}\">{id}</a></td><td>{title}</td>\
             <td><code>{key}</code></td><td>{created}</td></tr>\n",
            id = escape(&r.identifier()),
            title = escape(&r.title),
            created = escape(&r.created_at),
        ));
    }
    let shown = if (records.len() as u64) < total {
        format!(
            "<p>Showing the first {} of {total} records; see <code>/records?page=N</code>.</p>",
            records.len()
        )
    } else {
        String::new()
    };
    let body = if records.is_empty() {
        "<p>No records yet.</p>".to_string()
    } else {
        format!(
            "<table>\n<thead><tr><th>Identifier</th><th>Title</th><th>Key</th><th>Created (UTC)</th></tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"
        )
    };
    format!(
        "<!DOCTYPE html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<title>Lodge sandbox</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }}
th, td {{ text-align: left; padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }}
code {{ font-size: 0.85em; }}
</style>
</head>
<body>
<h1>Lodge sandbox</h1>
<p>{records}, {blobs}; since start: {creates} created, {conflicts}, {requests}.</p>
{body}
{shown}
</body>
</html>
",
        records = count_of(stats.records, "record", "records"),
        blobs = count_of(stats.blobs, "blob", "blobs"),
        creates = stats.creates,
        conflicts = count_of(stats.conflicts, "conflict", "conflicts"),
        requests = count_of(stats.requests, "request", "requests"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_read_in_words() {
        let stats = SandboxStats {
            records: 1,
            blobs: 2,
            creates: 1,
            conflicts: 1,
            requests: 1,
        };
        let page = index(&[], 1, &stats);
        assert!(
            page.contains(
                "<p>1 record, 2 blobs; since start: 1 created, 1 conflict, 1 request.</p>"
            ),
            "{page}"
        );
    }

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            super::escape("<b>\"Tom\" & 'Jerry'</b>"),
            "&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;"
        );
    }
}
