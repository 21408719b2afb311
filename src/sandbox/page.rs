//! The sandbox's pages for a person with a browser: `GET /` lists the records (and, after
//! them, what its InvenioRDM and DataCite emulations hold), and a record's own address (`GET /records/{key}` asking for HTML) shows it as a repository's
//! landing page would. Small and self-contained: no scripts, no files to serve.

use super::SandboxStats;
use super::db::{InvenioRow, RecordRow};
use crate::content::{ContentDocument, Funding, IdentifierScheme, RelatedWork, citation};
use crate::wording::{count_of, human_bytes};

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

/// What the emulations hold, newest first (the first page of it), for the index page.
#[derive(Default)]
pub(crate) struct EmulationHoldings {
    pub invenio: Vec<InvenioRow>,
    pub invenio_total: u64,
    /// Each DOI with its attributes (JSON text), as the DataCite emulation keeps them.
    pub dois: Vec<(String, String)>,
    pub doi_total: u64,
}

/// "Showing the newest N of TOTAL." when a list was cut short.
fn newest_of(shown: usize, total: u64) -> String {
    if (shown as u64) < total {
        format!("<p>Showing the newest {shown} of {total}.</p>\n")
    } else {
        String::new()
    }
}

/// The InvenioRDM emulation's records and drafts, each a link to its page there.
fn invenio_section(rows: &[InvenioRow], total: u64) -> String {
    if total == 0 {
        return String::new();
    }
    let mut table = String::new();
    for row in rows {
        let data: serde_json::Value = serde_json::from_str(&row.data).unwrap_or_default();
        let (state, page) = if row.published {
            ("published", "records")
        } else {
            ("draft", "uploads")
        };
        table.push_str(&format!(
            "<tr><td><a href=\"/{page}/{id}\">{id}</a></td><td>{title}</td><td>{state}</td>\
             <td>{created}</td></tr>\n",
            id = escape(&row.id),
            title = escape(data["metadata"]["title"].as_str().unwrap_or("")),
            created = escape(&row.created),
        ));
    }
    format!(
        "<h2>InvenioRDM emulation (<code>/api/records</code>)</h2>
<p>{count}, newest first.</p>
<table>
<thead><tr><th>Record</th><th>Title</th><th>State</th><th>Created (UTC)</th></tr></thead>
<tbody>
{table}</tbody>
</table>
{newest}",
        count = count_of(total, "record or draft", "records and drafts"),
        newest = newest_of(rows.len(), total),
    )
}

/// The DataCite emulation's DOIs, each with its landing page when it has one.
fn doi_section(dois: &[(String, String)], total: u64) -> String {
    if total == 0 {
        return String::new();
    }
    let mut table = String::new();
    for (doi, attributes) in dois {
        let attributes: serde_json::Value = serde_json::from_str(attributes).unwrap_or_default();
        // A link only to a web page: the attribute is whatever a client sent.
        let landing = match attributes["url"].as_str() {
            Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
                format!("<a href=\"{url}\">{url}</a>", url = escape(url))
            }
            Some(other) => escape(other),
            None => String::new(),
        };
        table.push_str(&format!(
            "<tr><td><a href=\"/dois/{doi}\">{doi}</a></td><td>{title}</td><td>{state}</td>\
             <td>{landing}</td></tr>\n",
            doi = escape(doi),
            title = escape(attributes["titles"][0]["title"].as_str().unwrap_or("")),
            state = escape(attributes["state"].as_str().unwrap_or("")),
        ));
    }
    format!(
        "<h2>DataCite emulation (<code>/dois</code>)</h2>
<p>{count}, newest first. A DOI's link is its JSON, behind the repository id and password.</p>
<table>
<thead><tr><th>DOI</th><th>Title</th><th>State</th><th>Landing page</th></tr></thead>
<tbody>
{table}</tbody>
</table>
{newest}",
        count = count_of(total, "DOI", "DOIs"),
        newest = newest_of(dois.len(), total),
    )
}

/// The page for `records` (the first page of them) out of `total`, then what the
/// emulations hold.
pub(crate) fn index(
    records: &[RecordRow],
    total: u64,
    stats: &SandboxStats,
    emulations: &EmulationHoldings,
) -> String {
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
    page(
        "Lodge sandbox",
        &format!(
            "<h1>Lodge sandbox</h1>
<p>{records}, {blobs}; since start: {creates} created, {conflicts}, {requests}.</p>
{body}
{shown}{invenio}{dois}",
            invenio = invenio_section(&emulations.invenio, emulations.invenio_total),
            dois = doi_section(&emulations.dois, emulations.doi_total),
            records = count_of(stats.records, "record", "records"),
            blobs = count_of(stats.blobs, "blob", "blobs"),
            creates = stats.creates,
            conflicts = count_of(stats.conflicts, "conflict", "conflicts"),
            requests = count_of(stats.requests, "request", "requests"),
        ),
    )
}

/// A record's landing page: its metadata, how to cite it, and its files, each a link to
/// its blob. `url` is the record's address (this page's).
pub(crate) fn record(row: &RecordRow, url: &str) -> String {
    let identifier = escape(&row.identifier());
    let Ok(document) = serde_json::from_str::<ContentDocument>(&row.document) else {
        // Not a document this Lodge reads (a newer encoding): show it as it is.
        return page(
            &identifier,
            &format!(
                "<h1>{identifier}</h1>\n<pre>{}</pre>\n<p><a href=\"/\">All records</a></p>",
                escape(&row.document)
            ),
        );
    };
    let m = &document.metadata;
    let creators: Vec<String> = m
        .creators
        .iter()
        .map(|c| {
            let mut text = escape(&c.name);
            if let Some(orcid) = &c.orcid {
                let orcid = escape(orcid);
                text.push_str(&format!(
                    " (<a href=\"https://orcid.org/{orcid}\">ORCID {orcid}</a>)"
                ));
            }
            if let Some(ror) = c.ror.as_deref() {
                let ror = escape(ror);
                text.push_str(&format!(" (<a href=\"{ror}\">ROR</a>)"));
            }
            for affiliation in &c.affiliations {
                text.push_str(&format!(", {}", escape(&affiliation.name)));
                // Only a ROR the record's validation accepted is a link to ror.org.
                if let Some(ror) = affiliation.ror.as_deref() {
                    let ror = escape(ror);
                    text.push_str(&format!(" (<a href=\"{ror}\">ROR</a>)"));
                }
            }
            text
        })
        .collect();
    let mut fields = vec![("Creators", creators.join("; "))];
    let optional = [
        (
            "Publication year",
            m.publication_year.map(|y| y.to_string()),
        ),
        ("Publisher", Some(m.publisher.clone())),
        ("Resource type", Some(m.resource_type.clone())),
        ("License", m.license.clone()),
        (
            "Keywords",
            (!m.keywords.is_empty()).then(|| m.keywords.join(", ")),
        ),
        ("Version", m.version.clone()),
        ("Description", m.description.clone()),
        ("Methods", m.methods.clone()),
        (
            "Language",
            m.language.as_deref().map(crate::content::language_name),
        ),
    ];
    fields.extend(
        optional
            .into_iter()
            .filter_map(|(name, value)| Some((name, escape(&value?)))),
    );
    if !m.related.is_empty() {
        fields.push(("Related works", related_works(&m.related)));
    }
    if !m.dates.is_empty() {
        let each = m.dates.iter().map(|d| escape(&d.describe()));
        fields.push(("Dates", each.collect::<Vec<_>>().join("<br>")));
    }
    if !m.communities.is_empty() {
        let each = m.communities.iter().map(|c| escape(c));
        fields.push(("Communities", each.collect::<Vec<_>>().join(", ")));
    }
    if !m.locations.is_empty() {
        let each = m.locations.iter().map(|l| escape(&l.describe()));
        fields.push(("Locations", each.collect::<Vec<_>>().join("<br>")));
    }
    if !m.funding.is_empty() {
        fields.push(("Funding", funders(&m.funding)));
    }
    if !m.contributors.is_empty() {
        let each = m
            .contributors
            .iter()
            .map(|c| format!("{} ({})", escape(&c.name), escape(&c.role)));
        fields.push(("Contributors", each.collect::<Vec<_>>().join("<br>")));
    }
    let fields: String = fields
        .iter()
        .map(|(name, value)| format!("<dt>{name}</dt><dd>{value}</dd>\n"))
        .collect();
    let total: u64 = document.manifest.iter().map(|f| f.size).sum();
    let files: String = document
        .manifest
        .iter()
        .map(|f| {
            let hex = f.sha256.to_hex();
            // The blob's address is its digest: `download` saves it under the file's name.
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            format!(
                "<tr><td><a href=\"/blobs/sha256/{hex}\" download=\"{name}\">{path}</a></td>\
                 <td>{size}</td><td><code>{hex}</code></td></tr>\n",
                name = escape(name),
                path = escape(&f.path),
                size = human_bytes(f.size),
            )
        })
        .collect();
    page(
        &escape(&m.title),
        &format!(
            "<h1>{title}</h1>
<p>{identifier} · created {created} (UTC)</p>
<dl>
{fields}</dl>
<h2>Cite as</h2>
<p>{cite}</p>
<h2>Files ({count}, {size})</h2>
<table>
<thead><tr><th>Path</th><th>Size</th><th>SHA-256</th></tr></thead>
<tbody>
{files}</tbody>
</table>
<p>Content key <code>{key}</code>. API clients get this record as JSON at this address.</p>
<p><a href=\"/\">All records</a></p>",
            title = escape(&m.title),
            created = escape(&row.created_at),
            cite = escape(&citation(m, &row.identifier(), Some(url))),
            count = count_of(document.manifest.len() as u64, "file", "files"),
            size = human_bytes(total),
            key = escape(&row.key),
        ),
    )
}

/// Each related work on a line: its relation, and its identifier as a link (a DOI by its
/// doi.org address).
fn related_works(related: &[RelatedWork]) -> String {
    related
        .iter()
        .map(|r| {
            let id = escape(&r.identifier);
            let link = match r.scheme() {
                Some(IdentifierScheme::Doi) => Some(format!("https://doi.org/{id}")),
                Some(IdentifierScheme::Url) => Some(id.clone()),
                None => None,
            };
            match link {
                Some(href) => format!("{} <a href=\"{href}\">{id}</a>", escape(&r.relation)),
                None => format!("{} {id}", escape(&r.relation)),
            }
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Each funder on a line, with its award: `NSF, award 2045678: Soil cores`, escaped.
fn funders(funding: &[Funding]) -> String {
    funding
        .iter()
        .map(|f| {
            let mut line = escape(&f.funder);
            match (&f.award_number, &f.award_title) {
                (Some(n), Some(t)) => line += &format!(", award {}: {}", escape(n), escape(t)),
                (Some(n), None) => line += &format!(", award {}", escape(n)),
                (None, Some(t)) => line += &format!(", award: {}", escape(t)),
                (None, None) => {}
            }
            line
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// An HTML page: `title` (already escaped) and `body` (markup).
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }}
th, td {{ text-align: left; padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }}
code {{ font-size: 0.85em; }}
dt {{ font-weight: bold; margin-top: 0.5em; }}
dd {{ margin-left: 1.5em; }}
</style>
</head>
<body>
{body}
</body>
</html>
"
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
        let page = index(&[], 1, &stats, &EmulationHoldings::default());
        assert!(
            page.contains(
                "<p>1 record, 2 blobs; since start: 1 created, 1 conflict, 1 request.</p>"
            ),
            "{page}"
        );
    }

    #[test]
    fn a_dois_landing_page_is_a_link_only_when_it_is_a_web_address_and_lists_say_when_cut() {
        let doi = |n: u32, url: &str| {
            (
                format!("10.80000/x{n}"),
                serde_json::json!({"state": "findable", "url": url, "titles": [{"title": "T"}]})
                    .to_string(),
            )
        };
        let emulations = EmulationHoldings {
            dois: vec![
                doi(1, "https://example.org/a"),
                doi(2, "javascript:alert(1)"),
            ],
            doi_total: 3,
            ..Default::default()
        };
        let page = index(&[], 0, &SandboxStats::default(), &emulations);
        assert!(
            page.contains("<a href=\"https://example.org/a\">https://example.org/a</a>"),
            "{page}"
        );
        assert!(!page.contains("href=\"javascript:"), "{page}");
        assert!(page.contains("<td>javascript:alert(1)</td>"), "{page}");
        assert!(page.contains("3 DOIs, newest first"), "{page}");
        assert!(page.contains("Showing the newest 2 of 3."), "{page}");
        assert!(!page.contains("InvenioRDM emulation"), "{page}");
    }

    /// The page of a record of `metadata` and no files.
    fn record_page_of(metadata: &crate::content::Metadata) -> String {
        let document = ContentDocument::new(Vec::new(), metadata);
        let row = RecordRow {
            seq: 1,
            key: document.key().to_hex(),
            title: metadata.title.clone(),
            created_at: "2026-12-05T00:00:00Z".into(),
            document: String::from_utf8(document.canonical_json()).unwrap(),
        };
        super::record(&row, "http://127.0.0.1:1/records/x")
    }

    #[test]
    fn a_records_related_works_are_links_a_doi_by_its_doi_org_address() {
        let metadata = crate::content::Metadata {
            title: "Cores".into(),
            related: vec![
                RelatedWork::parse("IsSupplementTo 10.1234/paper").unwrap(),
                RelatedWork::parse("IsDocumentedBy https://lab.example.org/a?b=1&c=<2>").unwrap(),
            ],
            ..crate::content::Metadata::default()
        };
        let html = record_page_of(&metadata);
        assert!(
            html.contains(
                "<dt>Related works</dt><dd>IsSupplementTo <a \
                 href=\"https://doi.org/10.1234/paper\">10.1234/paper</a><br>IsDocumentedBy \
                 <a href=\"https://lab.example.org/a?b=1&amp;c=&lt;2&gt;\">\
                 https://lab.example.org/a?b=1&amp;c=&lt;2&gt;</a></dd>"
            ),
            "{html}"
        );
    }

    #[test]
    fn a_records_funders_contributors_dates_locations_and_communities_are_listed_escaped() {
        let metadata = crate::content::Metadata {
            title: "Cores".into(),
            funding: vec![
                Funding::parse("NSF; award=2045678; award-title=Soil <cores> & more").unwrap(),
                Funding::parse("Wellcome Trust").unwrap(),
            ],
            contributors: vec![
                crate::content::Contributor::parse("Curie, <Marie>; role=ContactPerson").unwrap(),
            ],
            dates: vec![crate::content::DatasetDate::parse("Collected 2025").unwrap()],
            locations: vec![
                crate::content::Location::parse("<Zurich>; lat=47.27; lon=8.65").unwrap(),
            ],
            communities: vec!["soil-science".into()],
            ..crate::content::Metadata::default()
        };
        let html = record_page_of(&metadata);
        assert!(
            html.contains(
                "<dt>Funding</dt><dd>NSF, award 2045678: Soil &lt;cores&gt; &amp; more<br>\
                 Wellcome Trust</dd>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<dt>Contributors</dt><dd>Curie, &lt;Marie&gt; (ContactPerson)</dd>"),
            "{html}"
        );
        assert!(
            html.contains("<dt>Dates</dt><dd>Collected 2025</dd>"),
            "{html}"
        );
        assert!(
            html.contains("<dt>Locations</dt><dd>&lt;Zurich&gt;; lat=47.27; lon=8.65</dd>"),
            "{html}"
        );
        assert!(
            html.contains("<dt>Communities</dt><dd>soil-science</dd>"),
            "{html}"
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
