//! Text written as `Name; label=value; label=value`: how `--creator`, `--contributor` and
//! `--funding` take a creator, a contributor or a funder, and how the window's one-a-line
//! fields hold them. A `;` that is part of a name or a value is written `\;` (an
//! affiliation "Trinity College Dublin; School of Physics" from a citation file, say).

/// `text` read as `Name; label=value; ...` with the parts `labels` takes, each a label and
/// how its value is written in messages (`("award", "NUMBER")`): the name before the first
/// `;`, and each label's value (trimmed; the last one given wins), in the order of `labels`.
/// Empty parts (`a;;b`, a trailing `;`) are skipped; a part without `=`, or with another
/// label, is refused naming it and the labels, `example` showing the whole form.
pub(super) fn read_labelled<const N: usize>(
    text: &str,
    labels: [(&str, &str); N],
    example: &str,
) -> Result<(String, [Option<String>; N]), String> {
    let (name, parts) = read_labelled_parts(text, labels, example)?;
    let mut values: [Option<String>; N] = std::array::from_fn(|_| None);
    for (label, value) in parts {
        if let Some(at) = labels.iter().position(|(l, _)| *l == label) {
            values[at] = Some(value);
        }
    }
    Ok((name, values))
}

/// One part of a labelled text: its label (one of those the reader takes) and its value,
/// trimmed.
pub(super) type LabelledPart<'a> = (&'a str, String);

/// As [`read_labelled`], but every part in the order written: for a label that may be
/// given more than once.
pub(super) fn read_labelled_parts<'a, const N: usize>(
    text: &str,
    labels: [(&'a str, &str); N],
    example: &str,
) -> Result<(String, Vec<LabelledPart<'a>>), String> {
    let listed = {
        let each: Vec<String> = labels.iter().map(|(l, v)| format!("{l}={v}")).collect();
        match each.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    };
    let mut parts = split_unescaped(text).into_iter();
    let name = parts.next().unwrap_or_default().trim().to_string();
    // `award=55; award-title=...`: the name left out, its first part would be taken for
    // it (and sent to a repository as a funder's name).
    if let Some((label, _)) = name.split_once('=')
        && let Some((label, _)) = labels.iter().find(|(l, _)| *l == label.trim())
    {
        return Err(format!(
            "'{text}' begins with {label}=, not with the name: write the name first, e.g. \
             \"{example}\""
        ));
    }
    let mut values = Vec::new();
    for part in parts.filter(|p| !p.trim().is_empty()) {
        let Some((label, value)) = part.split_once('=') else {
            let part = part.trim();
            return Err(format!(
                "'{text}': '{part}' should be {listed}, e.g. \"{example}\""
            ));
        };
        let label = label.trim();
        let Some((label, _)) = labels.iter().find(|(l, _)| *l == label) else {
            return Err(format!(
                "'{text}': unknown part '{label}' (use {listed} after the name)"
            ));
        };
        values.push((*label, value.trim().to_string()));
    }
    Ok((name, values))
}

/// `text` cut at each `;` not written `\;`, each piece with its `\;` read as `;`.
fn split_unescaped(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let part = parts.last_mut().expect("never empty");
        match c {
            '\\' if chars.peek() == Some(&';') => {
                part.push(';');
                chars.next();
            }
            ';' => parts.push(String::new()),
            c => part.push(c),
        }
    }
    parts
}

/// `name`, then `; label=value` for each part given, a `;` in either written `\;`: what
/// [`read_labelled`] reads back.
pub(super) fn join_labelled(name: &str, parts: &[(&str, Option<&str>)]) -> String {
    let escaped = |text: &str| text.trim().replace(';', "\\;");
    let mut text = escaped(name);
    for (label, value) in parts {
        if let Some(value) = value {
            text.push_str(&format!("; {label}={}", escaped(value)));
        }
    }
    text
}

/// What is wrong with an item whose `name` holds a `;` or an `=`: a line of the window that
/// could not be read (one that begins with a part, `award=55`, its name left out), kept
/// whole as the name so that it is named rather than dropped (read again here to say why).
/// `said` is the item as written, `parse` how it is read; `None` when the name reads as
/// one.
pub(super) fn unread_line_problem<T>(
    name: &str,
    said: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Option<String> {
    if !name.contains([';', '=']) {
        return None;
    }
    match parse(name) {
        Err(why) => Some(why),
        Ok(_) if name.contains(';') => Some(format!("'{said}': a name cannot hold ';'")),
        Ok(_) => None,
    }
}

/// What is wrong with an item (`said`, as written) one of whose `parts` holds a line break
/// or another control character; `None` when none does.
pub(super) fn line_break_problem(said: &str, parts: &[Option<&String>]) -> Option<String> {
    let broken = parts
        .iter()
        .flatten()
        .any(|p| p.chars().any(char::is_control));
    broken.then(|| {
        format!(
            "'{}' has a line break or another control character: write it on one line",
            said.escape_debug()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABELS: [(&str, &str); 2] = [("role", "ROLE"), ("orcid", "ID")];

    #[test]
    fn a_name_then_each_labels_value_trimmed_with_empty_parts_skipped() {
        let read = read_labelled(" Curie, Marie ; orcid=a=b ;; role= Editor ;", LABELS, "X");
        let (name, [role, orcid]) = read.unwrap();
        assert_eq!(name, "Curie, Marie");
        assert_eq!(role.as_deref(), Some("Editor"));
        assert_eq!(orcid.as_deref(), Some("a=b"));
        assert_eq!(
            read_labelled("NSF", LABELS, "X").unwrap(),
            ("NSF".to_string(), [None, None])
        );
    }

    #[test]
    fn a_part_without_a_label_or_with_another_is_refused_naming_it_and_the_labels() {
        let why = read_labelled("NSF; 2045678 ", LABELS, "NSF; role=R").unwrap_err();
        assert_eq!(
            why,
            "'NSF; 2045678 ': '2045678' should be role=ROLE or orcid=ID, e.g. \"NSF; role=R\""
        );
        let why = read_labelled("NSF; grant=1", LABELS, "X").unwrap_err();
        assert_eq!(
            why,
            "'NSF; grant=1': unknown part 'grant' (use role=ROLE or orcid=ID after the name)"
        );
        let three = [("a", "1"), ("b", "2"), ("c", "3")];
        let why = read_labelled("N; x", three, "X").unwrap_err();
        assert!(why.contains("should be a=1, b=2 or c=3"), "{why}");
    }

    #[test]
    fn a_name_holding_a_semicolon_is_named_with_why_its_line_was_not_read() {
        let parse = |t: &str| read_labelled(t, LABELS, "X");
        let why = unread_line_problem("NSF; 2045678", "NSF; 2045678", parse).unwrap();
        assert!(why.contains("'2045678' should be role=ROLE"), "{why}");
        assert_eq!(unread_line_problem("NSF", "NSF", parse), None);
        // A name with an `=` that is no part's label is a name.
        assert_eq!(unread_line_problem("A=B Lab", "A=B Lab", parse), None);
    }

    #[test]
    fn a_line_that_begins_with_a_part_is_refused_for_its_missing_name() {
        let why = read_labelled("role=Editor; orcid=1", LABELS, "NSF; role=R").unwrap_err();
        assert_eq!(
            why,
            "'role=Editor; orcid=1' begins with role=, not with the name: write the name \
             first, e.g. \"NSF; role=R\""
        );
        let parse = |t: &str| read_labelled(t, LABELS, "NSF; role=R");
        let alone = unread_line_problem("role=Editor", "role=Editor", parse).unwrap();
        assert!(
            alone.contains("begins with role=, not with the name"),
            "{alone}"
        );
    }

    #[test]
    fn a_part_with_a_line_break_is_a_problem_said_on_one_line() {
        let broken = "Lab\nParis".to_string();
        let why = line_break_problem("Lab\nParis", &[None, Some(&broken)]).unwrap();
        assert!(why.starts_with("'Lab\\nParis' has a line break"), "{why}");
        let fine = "Lab".to_string();
        assert_eq!(line_break_problem("Lab", &[Some(&fine), None]), None);
    }

    #[test]
    fn a_semicolon_written_with_a_backslash_is_part_of_the_name_or_value_and_is_read_back() {
        let text = join_labelled(
            "O'Brien, Siobhán",
            &[
                ("orcid", None),
                ("role", Some("Trinity College Dublin; Physics")),
            ],
        );
        assert_eq!(
            text,
            "O'Brien, Siobhán; role=Trinity College Dublin\\; Physics"
        );
        let (name, [role, orcid]) = read_labelled(&text, LABELS, "X").unwrap();
        assert_eq!(name, "O'Brien, Siobhán");
        assert_eq!(role.as_deref(), Some("Trinity College Dublin; Physics"));
        assert_eq!(orcid, None);
        let (name, _) = read_labelled("Lab A\\; Lab B; role=R", LABELS, "X").unwrap();
        assert_eq!(name, "Lab A; Lab B");
        // A backslash before anything else is itself.
        let (name, _) = read_labelled("C:\\data", LABELS, "X").unwrap();
        assert_eq!(name, "C:\\data");
    }

    #[test]
    fn joined_parts_are_read_back_and_parts_not_given_are_left_out() {
        let text = join_labelled(" NSF ", &[("award", Some(" 1 ")), ("award-title", None)]);
        assert_eq!(text, "NSF; award=1");
        let (name, [award, title]) =
            read_labelled(&text, [("award", "N"), ("award-title", "T")], "X").unwrap();
        assert_eq!(
            (name.as_str(), award.as_deref(), title),
            ("NSF", Some("1"), None)
        );
    }
}
