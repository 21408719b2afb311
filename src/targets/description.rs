//! A description (or methods) as each kind of repository shows it.
//!
//! Lodge keeps a description as it was given, and that is what the content key covers: plain
//! text typed in the window or given with `--description`, or HTML from a `.zenodo.json`
//! (Zenodo's legacy description is HTML). Repositories differ: InvenioRDM (and Zenodo)
//! render a description as HTML, so plain text would lose its paragraphs and show `<` as a
//! tag; DataCite shows it as plain text, so HTML would show its tags. Each target is sent
//! the form it shows, made here at send time; the key does not change.

/// Tags that mark a text as HTML: those a description written as HTML uses.
const HTML_TAGS: &[&str] = &[
    "a",
    "b",
    "blockquote",
    "br",
    "code",
    "div",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "td",
    "th",
    "tr",
    "u",
    "ul",
];

/// Whether `text` is written as HTML: it holds at least one of the tags such a text uses
/// (`<p>`, `</em>`, `<br/>`), not merely a `<` ("depth < 2 m").
pub fn is_html(text: &str) -> bool {
    text.match_indices('<').any(|(at, _)| {
        let rest = &text[at + 1..];
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let name: String = rest
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let after = rest[name.len()..].chars().next();
        HTML_TAGS.contains(&name.as_str()) && matches!(after, Some('>' | ' ' | '/' | '\n'))
    })
}

/// `text` as HTML for a repository that renders it so: HTML as it is; plain text with
/// `&`, `<` and `>` escaped, each paragraph (lines apart by a blank one) a `<p>`, and each
/// other line break a `<br>`.
pub fn as_html(text: &str) -> String {
    if is_html(text) {
        return text.to_string();
    }
    let text = text.replace("\r\n", "\n");
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    paragraphs(&escaped)
        .into_iter()
        .map(|p| {
            format!(
                "<p>{}</p>",
                p.lines()
                    .map(str::trim_end)
                    .collect::<Vec<_>>()
                    .join("<br>")
            )
        })
        .collect()
}

/// `text` as plain text for a repository that shows it so: plain text as it is; HTML with
/// its tags taken out (a paragraph's end a blank line, a `<br>` or a list item's end a
/// line break) and the common character references read.
pub fn as_plain_text(text: &str) -> String {
    if !is_html(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let tag = rest[open + 1..open + close].trim().to_ascii_lowercase();
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        match name.as_str() {
            "br" => out.push('\n'),
            "p" | "div" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "table"
            | "blockquote" | "pre"
                if tag.starts_with('/') =>
            {
                out.push_str("\n\n")
            }
            "li" if !tag.starts_with('/') => out.push_str("\n- "),
            "tr" if tag.starts_with('/') => out.push('\n'),
            _ => {}
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let decoded = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    // At most one blank line between paragraphs, none at either end.
    let mut lines: Vec<&str> = Vec::new();
    for line in decoded.lines().map(str::trim) {
        if !(line.is_empty() && lines.last().is_none_or(|l| l.is_empty())) {
            lines.push(line);
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// The paragraphs of `text`: its runs of lines apart by blank ones, none empty.
fn paragraphs(text: &str) -> Vec<String> {
    let mut current: Vec<&str> = Vec::new();
    let mut all: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                all.push(current.join("\n"));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        all.push(current.join("\n"));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_told_from_text_by_its_tags_not_by_a_less_than_sign() {
        assert!(is_html("<p>Profiles from <em>Argo</em></p>"));
        assert!(is_html("One line<br/>another"));
        assert!(is_html("<P CLASS=x>Upper case</P>"));
        assert!(!is_html("depth < 2 m and > 1 m"));
        assert!(!is_html("a <placeholder> word"));
        assert!(!is_html("Sediment cores from **Lake Zurich**."));
    }

    #[test]
    fn plain_text_becomes_paragraphs_with_its_special_characters_escaped() {
        assert_eq!(
            as_html("Cores from Lake Zurich.\r\n\r\nDepth < 2 m & more\nsecond line\n\n\n"),
            "<p>Cores from Lake Zurich.</p><p>Depth &lt; 2 m &amp; more<br>second line</p>"
        );
        let html = "<p>Profiles from <em>Argo</em> floats.</p>";
        assert_eq!(as_html(html), html, "HTML is sent as it is");
    }

    #[test]
    fn html_becomes_plain_text_with_its_paragraphs_and_list_items_kept() {
        assert_eq!(
            as_plain_text(
                "<p>Profiles from <em>Argo</em> &amp; gliders.</p>\n<ul><li>one</li><li>two</li></ul><p>a<br>b&nbsp;c</p>"
            ),
            "Profiles from Argo & gliders.\n\n- one\n- two\n\na\nb c"
        );
        let text = "Depth < 2 m.\n\nSecond paragraph.";
        assert_eq!(as_plain_text(text), text, "text is sent as it is");
    }
}
