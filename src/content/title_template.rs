//! A title written once for many folders: `{folder}` in it stands for each folder's name
//! ("Soil survey {folder}"). `lodge add --title` and the window's default title share it.
//!
//! Only `{folder}` is filled in. Anything else in braces that looks like a placeholder
//! (`{name}`, `{dir}`, `{}`) is almost always a guess at it, and a title goes to the
//! repository exactly as written (into a DOI's record, for good), so such a template is
//! refused with the fix rather than deposited with the braces in it; so is a placeholder
//! typed with one of its braces missing (`{folde`, `folder}`).

/// What a title template writes in for the folder's name.
pub const FOLDER_PLACEHOLDER: &str = "{folder}";

/// The title `template` gives the folder named `folder`. A control character in the name
/// (a tab, a line break: a title refuses them) is written as a space, runs of them as one.
pub fn title_for_folder(template: &str, folder: &str) -> String {
    let name = match folder.contains(char::is_control) {
        false => std::borrow::Cow::Borrowed(folder),
        true => std::borrow::Cow::Owned(
            folder
                .split(char::is_control)
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        ),
    };
    template.replace(FOLDER_PLACEHOLDER, &name)
}

/// The first placeholder-like word in braces in `template` that is not `{folder}`: braces
/// around nothing or around letters, digits, `_`, `-` and `.` only (`{name}`, `{}`,
/// `{Folder}`). Braces around anything else (`{A, B}`, `{x = 1}`) are left for the title.
pub fn unknown_placeholder(template: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(open) = template[from..].find('{').map(|i| from + i) {
        // Where the run of name characters after the brace stops (if it never does, no
        // brace closes after it, and none after that either).
        let stop = open + 1 + template[open + 1..].find(|c: char| !is_placeholder_char(c))?;
        if template[stop..].starts_with('}') {
            let whole = &template[open..=stop];
            if whole != FOLDER_PLACEHOLDER {
                return Some(whole);
            }
        }
        from = open + 1;
    }
    None
}

/// A placeholder typed with one of its braces missing: an opening brace followed by a name
/// (`{folde`, `{folder -`) where no brace closes after it, or a name closed by a brace
/// (`folder}`) where none opened before it. A lone brace with a space beside it (`a { b`)
/// is left for the title.
pub fn half_placeholder(template: &str) -> Option<&str> {
    if let Some(open) = template.rfind('{')
        && !template[open..].contains('}')
    {
        let name = template[open + 1..]
            .find(|c: char| !is_placeholder_char(c))
            .map_or(template.len(), |stop| open + 1 + stop);
        if name > open + 1 {
            return Some(&template[open..name]);
        }
    }
    if let Some(close) = template.find('}')
        && !template[..close].contains('{')
    {
        let name = template[..close]
            .char_indices()
            .rev()
            .find(|&(_, c)| !is_placeholder_char(c))
            .map_or(0, |(before, c)| before + c.len_utf8());
        if name < close {
            return Some(&template[name..=close]);
        }
    }
    None
}

fn is_placeholder_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Why `template` cannot be used, naming the unknown placeholder and what to write instead;
/// `subject` names where the template was given (`--title "Run {name}"`, "Title").
pub fn template_problem(template: &str, subject: &str) -> Option<String> {
    if let Some(half) = half_placeholder(template) {
        let fixed = template.replacen(half, FOLDER_PLACEHOLDER, 1);
        return Some(format!(
            "{subject}: {half} lacks a brace, and the title would reach the repository with \
             it as written; {FOLDER_PLACEHOLDER}, in both braces, is the one placeholder, for \
             each folder's name: \"{fixed}\""
        ));
    }
    let unknown = unknown_placeholder(template)?;
    let fixed = template.replacen(unknown, FOLDER_PLACEHOLDER, 1);
    Some(format!(
        "{subject}: {unknown} is not filled in by Lodge, and the title would reach the \
         repository with it as written; {FOLDER_PLACEHOLDER} is the one placeholder, for each \
         folder's name: \"{fixed}\""
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_is_replaced_by_the_folder_name_everywhere() {
        assert_eq!(
            title_for_folder("Run {folder} ({folder})", "ds1"),
            "Run ds1 (ds1)"
        );
    }

    #[test]
    fn a_tab_in_the_folders_name_is_a_space_in_the_title() {
        assert_eq!(
            title_for_folder("Soil survey {folder}", "run\t1\r\n\t2"),
            "Soil survey run 1 2"
        );
        let title = title_for_folder("Soil survey {folder}", "run\t1");
        assert!(
            crate::content::Metadata {
                title: title.clone(),
                ..Default::default()
            }
            .problems()
            .iter()
            .all(|p| p.field != "title"),
            "{title}"
        );
    }

    #[test]
    fn guesses_at_the_placeholder_are_found() {
        for (template, unknown) in [
            ("Run {name}", "{name}"),
            ("Run {}", "{}"),
            ("Run {Folder}", "{Folder}"),
            ("{folder} {folder_name}", "{folder_name}"),
            ("{dir.name}", "{dir.name}"),
        ] {
            assert_eq!(unknown_placeholder(template), Some(unknown), "{template}");
        }
    }

    #[test]
    fn braces_that_are_part_of_the_title_are_left_alone() {
        for template in [
            "Run {folder}",
            "Sets {A, B} of {folder}",
            "Model {x = 1}",
            "Open brace { only",
            "Close brace } only",
            "",
        ] {
            assert_eq!(unknown_placeholder(template), None, "{template}");
        }
    }

    #[test]
    fn a_placeholder_missing_a_brace_is_found() {
        for (template, half) in [
            ("Soil run {folde", "{folde"),
            ("Soil run {folder - 2026", "{folder"),
            ("{folder} and {name", "{name"),
            ("Run folder}", "folder}"),
            ("folder} run", "folder}"),
            ("Lauf über folder}", "folder}"),
            ("Lauf üfolder}", "folder}"),
        ] {
            assert_eq!(half_placeholder(template), Some(half), "{template}");
        }
        for template in [
            "Open brace { only",
            "Close brace } only",
            "Run {folder}",
            "{",
        ] {
            assert_eq!(half_placeholder(template), None, "{template}");
        }
    }

    #[test]
    fn a_half_placeholder_is_refused_with_the_title_it_meant() {
        let problem = template_problem("Soil run {folde", "Title").unwrap();
        assert!(
            problem.starts_with("Title: {folde lacks a brace"),
            "{problem}"
        );
        assert!(problem.ends_with("\"Soil run {folder}\""), "{problem}");
        let problem = template_problem("Run folder} 2", "Title").unwrap();
        assert!(problem.ends_with("\"Run {folder} 2\""), "{problem}");
    }

    #[test]
    fn the_problem_names_the_placeholder_and_the_corrected_title() {
        let problem = template_problem("Run {name} B", "--title").unwrap();
        assert!(
            problem.starts_with("--title: {name} is not filled in"),
            "{problem}"
        );
        assert!(problem.ends_with("\"Run {folder} B\""), "{problem}");
        assert_eq!(template_problem("Run {folder}", "--title"), None);
    }
}
