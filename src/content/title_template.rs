//! A title written once for many folders: `{folder}` in it stands for each folder's name
//! ("Soil survey {folder}"). `lodge add --title` and the window's default title share it.
//!
//! Only `{folder}` is filled in. Anything else in braces that looks like a placeholder
//! (`{name}`, `{dir}`, `{}`) is almost always a guess at it, and a title goes to the
//! repository exactly as written (into a DOI's record, for good), so such a template is
//! refused with the fix rather than deposited with the braces in it.

/// What a title template writes in for the folder's name.
pub const FOLDER_PLACEHOLDER: &str = "{folder}";

/// The title `template` gives the folder named `folder`.
pub fn title_for_folder(template: &str, folder: &str) -> String {
    template.replace(FOLDER_PLACEHOLDER, folder)
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

fn is_placeholder_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Why `template` cannot be used, naming the unknown placeholder and what to write instead;
/// `subject` names where the template was given (`--title "Run {name}"`, "Title").
pub fn template_problem(template: &str, subject: &str) -> Option<String> {
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
